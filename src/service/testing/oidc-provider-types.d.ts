// The little of oidc-provider's API the tests use: the package ships no types, and
// @types/oidc-provider trails its major versions.
declare module 'oidc-provider' {
  import type { Server } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number): Server;
    proxy: boolean;
  }

  export type FindAccount = (context: unknown, id: string) => Promise<Account | undefined>;
}
