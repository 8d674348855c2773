import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extraneousObjects } from '../../../../functions/core/gitops/extraneous.js';
import { skipReason } from '../../../../functions/core/gitops/hooks.js';
import { ManifestError, parseManifests, parseRender } from '../../../../functions/core/gitops/manifests.js';
import { DEFAULT_TRACKING } from '../../../../functions/core/gitops/tracking.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/gitops-render');

describe('hooks and generateName objects in a render (issue 14 §3)', () => {
  it('sets apart a Helm hook, an Argo CD hook and a generateName Job, keeping the ordinary objects', () => {
    const render = parseRender(readFileSync(join(FIXTURES, 'hooks/rendered.yaml'), 'utf8'));
    expect(render.objects.map((object) => object.kind)).toEqual(['ConfigMap', 'Service']);
    expect(render.skipped).toEqual([
      {
        kind: 'Job',
        name: 'shop-db-migrate',
        namespace: 'shop',
        reason: 'Helm hook (helm.sh/hook: pre-install,pre-upgrade)',
      },
      {
        kind: 'Job',
        name: 'schema-check',
        namespace: 'shop',
        reason: 'Argo CD hook (argocd.argoproj.io/hook: PreSync)',
      },
      {
        kind: 'Job',
        name: 'smoke-test-*',
        namespace: 'shop',
        reason: expect.stringContaining('generateName without a name'),
      },
    ]);
  });

  it('parseManifests returns only the objects to compare (a generateName object no longer fails the render)', () => {
    const objects = parseManifests(readFileSync(join(FIXTURES, 'hooks/rendered.yaml'), 'utf8'));
    expect(objects.map((object) => (object.metadata as { name: string }).name)).toEqual([
      'shop-settings',
      'shop',
    ]);
  });

  it('an object with both name and generateName has a name: it is compared', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'fixed', generateName: 'fixed-' },
    };
    expect(skipReason(object)).toBeUndefined();
  });

  it('hooks inside a kind: List are set apart too; a document with neither name nor generateName still fails the render', () => {
    const list = [
      'apiVersion: v1',
      'kind: List',
      'items:',
      '  - apiVersion: v1',
      '    kind: Pod',
      '    metadata: {name: test-connection, annotations: {helm.sh/hook: test}}',
      '  - apiVersion: v1',
      '    kind: ConfigMap',
      '    metadata: {name: kept}',
    ].join('\n');
    const render = parseRender(list);
    expect(render.objects).toHaveLength(1);
    expect(render.skipped).toEqual([
      { kind: 'Pod', name: 'test-connection', reason: 'Helm hook (helm.sh/hook: test)' },
    ]);
    expect(() => parseRender('apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: x}\n')).toThrow(
      ManifestError,
    );
  });
});

describe('a live hook left by its delete policy is not extraneous', () => {
  function liveJob(annotations: Record<string, string>) {
    return {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: 'db-migrate',
        namespace: 'shop',
        annotations: { 'argocd.argoproj.io/tracking-id': 'shop:batch/Job:shop/db-migrate', ...annotations },
      },
    };
  }

  it('a PreSync or Helm hook Job tracked by the application is left out; the same Job without a hook annotation is extraneous', () => {
    const apps = new Set(['shop']);
    const argoHook = liveJob({ 'argocd.argoproj.io/hook': 'PreSync' });
    const helmHook = liveJob({ 'helm.sh/hook': 'pre-upgrade' });
    expect(extraneousObjects([argoHook], [], apps, DEFAULT_TRACKING)).toEqual([]);
    expect(extraneousObjects([helmHook], [], apps, DEFAULT_TRACKING)).toEqual([]);
    expect(
      extraneousObjects([liveJob({})], [], apps, DEFAULT_TRACKING).map((entry) => entry.identity.name),
    ).toEqual(['db-migrate']);
  });
});
