import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/integration.js';

/**
 * `driftwatch scan` of a registry whose one scope is an Argo CD cluster that cannot be read. The
 * closing line counted workspaces only: "0 scanned, 0 failed, 0 busy", after a run that failed (exit
 * 1) and whose one finding was the cluster's scan-failed. It names the checks that failed now.
 */
const TOKEN = 'CANARY-scan-summary-token-7781';

describe('driftwatch scan of a registry cluster that cannot be read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-scan-checks-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const registry = join(dir, 'driftwatch.yaml');
  writeFileSync(
    registry,
    [
      'version: 1',
      'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: team@example.com }] }] }',
      'clusters:',
      '  - id: shop-prod',
      '    owner: platform',
      '    environment: prod',
      // Nothing listens on port 1: refused at once, offline.
      '    argocd: { url: "http://127.0.0.1:1", token: { env: ARGOCD_AUTH_TOKEN } }',
      '',
    ].join('\n'),
  );

  it('ends with the failed cluster named, exit 1, and no token anywhere', async () => {
    const run = await runCli(
      ['scan', '--registry', registry, '--store', join(dir, 'store'), '--format', 'json'],
      {
        env: {
          DRIFTWATCH_HASH_SALT: 'scan-other-checks-salt-01',
          ARGOCD_AUTH_TOKEN: TOKEN,
          DRIFTWATCH_PROGRESS: '',
        },
      },
    );
    expect(run.code).toBe(1);
    const findings = JSON.parse(run.stdout) as Array<{ ruleId: string }>;
    expect(findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-unreachable']);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^scan \S+: 0 scanned, 0 failed, 0 busy; 1 other check failed \(cluster shop-prod\); findings stored in /,
    );
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });
});
