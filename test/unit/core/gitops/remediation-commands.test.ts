import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PruneHold } from '../../../../functions/core/gitops/argo-options.js';
import { clusterRemediation, pruneStep } from '../../../../functions/core/gitops/cluster-findings.js';
import { identityOf, type KubeObject } from '../../../../functions/core/gitops/kube-object.js';
import {
  argoApplicationOf,
  argoAppName,
  DEFAULT_TRACKING,
} from '../../../../functions/core/gitops/tracking.js';

// The payload only creates files in a directory of its own: a test that runs injected commands
// must never hold a destructive one, in case a regression lets it through.
const sandbox = mkdtempSync(join(tmpdir(), 'driftwatch-injection-'));
const injected = join(sandbox, 'injected');
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

/**
 * The commands cluster findings quote in their steps (`argocd app diff <app>`, `argocd app sync <app>
 * --prune`) name the application a tracking id names. The id is an annotation: whoever may edit the
 * object writes it, and its application part is any text before the first colon.
 */
const live: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'api',
    namespace: 'shop',
    annotations: {
      'argocd.argoproj.io/tracking-id': `shop $(touch ${injected}); touch ${injected} 'q' *:apps/Deployment:shop/api`,
    },
  },
};

/** What the shell passes to `argocd` for each backticked argocd command of a text. */
function argocdArguments(text: string): string[][] {
  return [...text.matchAll(/`(argocd [^`]*)`/g)].map((match) => {
    const out = execFileSync('bash', ['-c', `argocd() { printf '%s\\0' "$@"; }; ${match[1]}`], {
      cwd: sandbox,
    });
    return out.toString().split('\0').slice(0, -1);
  });
}

describe('argocd commands in cluster remediations', () => {
  const owner = argoApplicationOf(live, identityOf(live)!, DEFAULT_TRACKING)!;
  const app = argoAppName(owner);
  const holds: PruneHold[] = [
    { by: 'annotation', option: 'Prune=false' },
    { by: 'application', option: 'Prune=confirm' },
    { by: 'sync-policy', option: 'no automated prune' },
  ];

  it('premise: the tracking id names that application, and the object is its own', () => {
    expect(app).toBe(`shop $(touch ${injected}); touch ${injected} 'q' *`);
  });

  it('give the shell the application name as one argument, in every step that names a command', () => {
    const texts = [
      ...clusterRemediation.drift({ app }, ['spec.replicas']).steps,
      ...clusterRemediation.missing({ app }, 'Deployment shop/api').steps,
      ...clusterRemediation.extraneous(app, 'Deployment shop/api').steps,
      ...holds.flatMap((hold) => clusterRemediation.orphaned(app, 'Deployment shop/api', hold).steps),
      ...holds.map((hold) => pruneStep(app, hold)),
      ...clusterRemediation.health(app, 'Degraded').steps,
    ];
    const commands = texts.flatMap(argocdArguments);
    expect(commands.length).toBeGreaterThanOrEqual(9);
    for (const args of commands) expect(args[2], args.join(' ')).toBe(app);
    expect(existsSync(injected)).toBe(false);
  });
});
