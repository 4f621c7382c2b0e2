import { elementOf, leafText } from '../../../kit/index.ts';
import type { OperationModule } from '../operation.ts';

// version: the service's version.

export const version: OperationModule = {
  embedded: (ctx) => ({ root: 'Response', body: { Version: ctx.version } }),
  upstream: async (upstream) => {
    const tree = await (upstream.poller?.sharedCall('version') ?? upstream.call('version', {}));
    return { root: 'Response', body: { Version: leafText(elementOf(tree.Response).Version) } };
  },
  openapi: { summary: 'The service’s version', fields: [], root: 'Response' },
  samples: [{ label: 'version', phase: 'read' }],
};
