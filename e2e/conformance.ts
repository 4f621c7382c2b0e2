import type { BrowserContext, Response as PageResponse } from '@playwright/test';
import { VERSION } from '../src/service/app.ts';
import { Conformance } from '../src/service/openapi/conformance.ts';
import { openApiDocument } from '../src/service/openapi/document.ts';

/*
 * Every answer the dashboard gets from our server during an e2e test, held to the server's
 * own /openapi.json (issue 16: the suites check the running server against its document).
 * Paths the document does not describe (the dashboard's files) are left alone.
 */

const conformance = new Conformance(openApiDocument(VERSION));

export class ConformanceGuard {
  readonly problems: string[] = [];
  private readonly checks: Promise<void>[] = [];

  watch(context: BrowserContext): void {
    context.on('response', (response) => this.checks.push(this.check(response)));
  }

  private async check(response: PageResponse): Promise<void> {
    const url = new URL(response.url());
    // Our servers listen on loopback; the browser reaches nothing else the document covers.
    if (url.hostname !== '127.0.0.1') return;
    const template = conformance.templateOf(url.pathname);
    if (!template) return;
    const method = response.request().method();
    let body: string;
    let headers: Record<string, string>;
    try {
      body = await response.text();
      headers = await response.allHeaders();
    } catch {
      // A page that navigated away, or a context closed meanwhile, took the answer with it:
      // nothing to hold.
      return;
    }
    const bodiless = [101, 204, 205, 304].includes(response.status());
    const answer = new Response(bodiless ? null : body, {
      status: response.status(),
      headers: { 'content-type': headers['content-type'] ?? '' },
    });
    this.problems.push(...(await conformance.problems({ method, template }, answer)));
  }

  /** Problems of every answer seen, once the checks under way have ended. */
  async settled(): Promise<string[]> {
    await Promise.all(this.checks);
    return this.problems;
  }
}
