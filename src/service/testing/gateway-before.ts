import type { AppConfig } from '../app.ts';
import type { IndexPoller } from '../gateway/poller.ts';
import type { UpstreamEntry } from '../gateway/services.ts';
import { startService, type TestService } from './service.ts';
import { startVendorService, type VendorService } from './vendor/vendor-service.ts';

// The set-up most gateway tests share: one vendor double, and our server in front of it,
// its index polled only when the test says (pollNow).

export interface GatewayBefore {
  readonly vendor: VendorService;
  readonly gateway: TestService;
  /** The index of the vendor's requests, polled by the test alone. */
  readonly poller: IndexPoller;
  /** Closes the gateway, then the vendor. */
  close(): Promise<void>;
}

/**
 * Starts a vendor double and a gateway in front of it. `vendor`: the double's variant, key,
 * clock and switches; `entry`: more of its services entry (id `v` and name `Vendor` unless
 * given; its url and key are the double's); `gateway`: more of the server's config.
 */
export async function startGatewayBefore(
  options: {
    readonly vendor?: Parameters<typeof startVendorService>[0];
    readonly entry?: Partial<Omit<UpstreamEntry, 'url' | 'apiKey'>>;
    readonly gateway?: Partial<AppConfig>;
  } = {},
): Promise<GatewayBefore> {
  const vendor = await startVendorService(options.vendor);
  const entry = {
    id: 'v',
    name: 'Vendor',
    ...options.entry,
    url: vendor.url,
    apiKey: vendor.apiKey,
  };
  let gateway: TestService;
  try {
    gateway = await startService({
      services: [entry],
      pollScheduled: false,
      ...options.gateway,
    });
  } catch (error) {
    await vendor.close();
    throw error;
  }
  const close = async () => {
    try {
      await gateway.close();
    } finally {
      await vendor.close();
    }
  };
  const poller = gateway.app.context.services.route(entry.id)?.upstream?.poller;
  if (!poller) {
    await close();
    throw new Error(`the gateway keeps no index of service ${entry.id}`);
  }
  return { vendor, gateway, poller, close };
}
