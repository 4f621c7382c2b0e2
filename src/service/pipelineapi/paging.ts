/** Paging fields of an Info element (contract section 5). */
export interface PageInfo {
  readonly Index: number;
  readonly Prev: number;
  readonly Next: number;
  readonly Count: number;
  readonly Total: number;
}

export function pageInfo(index: number, pageSize: number, count: number, total: number): PageInfo {
  return {
    Index: index,
    Prev: index > 0 ? Math.max(0, Math.min(index, total) - pageSize) : -1,
    Next: index + count < total ? index + count : -1,
    Count: count,
    Total: total,
  };
}
