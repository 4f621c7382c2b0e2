/** Query keys of requests, shared by every feature that reads or changes them. */
export const requestKeys = {
  all: ['requests'] as const,
  lists: () => [...requestKeys.all, 'list'] as const,
  list: (query: { date: string; id: string | undefined; index: number; size: number }) =>
    [...requestKeys.lists(), query] as const,
  details: () => [...requestKeys.all, 'detail'] as const,
  detail: (requestId: string) => [...requestKeys.details(), requestId] as const,
  raw: (requestId: string, format: string) =>
    [...requestKeys.all, 'raw', requestId, format] as const,
};
