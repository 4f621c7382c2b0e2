/** A field value as rows carry it between stages, and the action database stores it. */
export type Value = string | number | boolean | null;

/** A row by column name. */
export type Row = Record<string, Value>;
