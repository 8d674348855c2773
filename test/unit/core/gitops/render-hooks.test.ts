import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipReason } from '../../../../functions/core/gitops/hooks.js';
import { ManifestError, parseManifests, parseRender } from '../../../../functions/core/gitops/manifests.js';

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
