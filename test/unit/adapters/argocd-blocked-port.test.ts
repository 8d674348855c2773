import { describe, expect, it } from 'vitest';
import { createArgoCdClient } from '../../../functions/adapters/argocd-client.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';

/**
 * An Argo CD address on a port the fetch standard blocks (9, 22, 25, 6000, 10080… ports of other
 * protocols, blocked as browsers block them): Node's fetch refuses it without a connection, and the
 * failure read "cannot reach https://host:9: bad port", as if the server or the network were at fault.
 */
describe('an Argo CD address on a port fetch refuses', () => {
  it.each([9, 22, 6000])('port %i: says fetch refuses the port and what to give instead', async (port) => {
    const url = `https://127.0.0.1:${port}`;
    const failure = await createArgoCdClient({ source: { url }, token: async () => 'token' })
      .listApplications()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClusterSourceError);
    const message = (failure as Error).message;
    expect(message).toContain(`cannot reach ${url}: Node's fetch refuses port ${port}`);
    expect(message).toContain('give the port Argo CD serves on (443 by default)');
    expect(message).not.toMatch(/: bad port/);
  });
});
