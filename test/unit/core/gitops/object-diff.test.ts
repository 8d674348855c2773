import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../../functions/core/findings/model.js';
import type { KubeObject } from '../../../../functions/core/gitops/kube-object.js';
import { normalizeObject } from '../../../../functions/core/gitops/normalize.js';
import { diffKubeObjects } from '../../../../functions/core/gitops/object-diff.js';
import { parseQuantity } from '../../../../functions/core/gitops/quantity.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';

const hashSensitive = createSensitiveHasher('object-diff-test-salt-01');
const full = { mode: 'full' as const, hashSensitive };
const declared = { mode: 'declared' as const, hashSensitive };

function deployment(
  containers: JsonValue[],
  extra: KubeObject = {},
): KubeObject & { metadata: { name: string; namespace: string; labels: Record<string, string> } } {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'api', namespace: 'payments', labels: { 'app.kubernetes.io/name': 'api' } },
    spec: { replicas: 2, template: { spec: { containers } } },
    ...extra,
  };
}

describe('diffKubeObjects', () => {
  it('names paths like Terraform drift: indexes and quoted keys', () => {
    const desired = deployment([{ name: 'api', image: 'api:1' }]);
    const live = deployment([{ name: 'api', image: 'api:2' }]);
    (live.metadata.labels as Record<string, string>)['app.kubernetes.io/name'] = 'api-v2';
    expect(diffKubeObjects(desired, live, full)).toEqual([
      { path: 'metadata.labels["app.kubernetes.io/name"]', before: 'api', after: 'api-v2', sensitive: false },
      { path: 'spec.template.spec.containers[0].image', before: 'api:1', after: 'api:2', sensitive: false },
    ]);
  });

  it('matches containers and env entries by name, so an inserted sidecar shifts nothing', () => {
    const desired = deployment([{ name: 'api', image: 'api:1', env: [{ name: 'A', value: '1' }] }]);
    const live = deployment([
      { name: 'istio-proxy', image: 'proxy:1' },
      {
        name: 'api',
        image: 'api:1',
        env: [
          { name: 'B', value: '2' },
          { name: 'A', value: '1' },
        ],
      },
    ]);
    expect(diffKubeObjects(desired, live, declared)).toEqual([]);
    // Full mode reports what exists only live, at its live index.
    expect(diffKubeObjects(desired, live, full).map((change) => change.path)).toEqual([
      'spec.template.spec.containers[0].env[0]',
      'spec.template.spec.containers[0]',
    ]);
  });

  it('ignores server defaults in declared mode and treats equal quantities as equal', () => {
    const desired = deployment([{ name: 'api', resources: { requests: { cpu: '0.5', memory: '1024Mi' } } }]);
    const live = deployment(
      [
        {
          name: 'api',
          imagePullPolicy: 'IfNotPresent',
          resources: { requests: { cpu: '500m', memory: '1Gi' } },
        },
      ],
      { status: { replicas: 2 } },
    );
    expect(diffKubeObjects(normalizeObject(desired), normalizeObject(live), declared)).toEqual([]);
    expect(parseQuantity('1.5Gi')).toBe(1.5 * 2 ** 30);
    expect(parseQuantity('100m')).toBeCloseTo(0.1);
    expect(parseQuantity('lots')).toBeUndefined();
  });

  it('hashes Secret data, env values under secret names and secret-looking keys, also inside whole blocks', () => {
    const secret = (value: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { password: value },
    });
    const [data] = diffKubeObjects(secret('b2xk'), secret('bmV3'), full);
    expect(data).toEqual({
      path: 'data.password',
      before: hashSensitive('b2xk'),
      after: hashSensitive('bmV3'),
      sensitive: true,
    });

    const desired = deployment([{ name: 'api', env: [{ name: 'LOG', value: 'info' }] }]);
    const live = deployment([
      {
        name: 'api',
        env: [
          { name: 'LOG', value: 'info' },
          { name: 'DB_PASSWORD', value: 'hunter2-plain' },
        ],
      },
    ]);
    const changes = diffKubeObjects(desired, live, full);
    expect(JSON.stringify(changes)).not.toContain('hunter2-plain');
    expect(changes).toEqual([
      {
        path: 'spec.template.spec.containers[0].env[1]',
        before: null,
        after: { name: 'DB_PASSWORD', value: hashSensitive('hunter2-plain') },
        sensitive: true,
      },
    ]);
  });

  it("hashes a ConfigMap's binaryData values, changed, added or removed (base64 of keystores the text rules cannot read)", () => {
    // A PKCS#12 keystore's first bytes in base64, as `kubectl create configmap --from-file` stores it.
    const keystore = 'MIIKZgIBAzCCCiAGCSqGSIb3DQEHAaCCChEEggoNMIIKCTCCBXUGCSqGSIb3DQEHAaCC';
    const configMap = (binaryData: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'tls' },
      binaryData,
    });
    const changes = diffKubeObjects(
      configMap({ 'keystore.p12': 'AAEC', 'old.bin': 'AwQF' }),
      configMap({ 'keystore.p12': keystore, 'new.bin': keystore }),
      full,
    );
    expect(JSON.stringify(changes)).not.toContain(keystore);
    expect(changes.map((change) => [change.path, change.sensitive])).toEqual([
      ['binaryData["keystore.p12"]', true],
      ['binaryData["old.bin"]', true],
      ['binaryData["new.bin"]', true],
    ]);
    expect(changes[0]).toMatchObject({ before: hashSensitive('AAEC'), after: hashSensitive(keystore) });
  });

  it('hashes a ConfigMap file that holds nothing but credentials, by its name, whatever its lines look like', () => {
    // A password file on a port the pgpass text rule does not know, and a .netrc on one line each.
    const configMap = (pgpass: string, netrc: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'db-client' },
      data: { '.pgpass': pgpass, '.netrc': netrc, 'app.conf': 'retries = 3' },
    });
    const changes = diffKubeObjects(
      configMap('db.internal:15432:app:deploy:old-pw-1', 'machine git login ci password old-pw-2'),
      configMap('db.internal:15432:app:deploy:CNRYFILE1x', 'machine git login ci password CNRYFILE2x'),
      full,
    );
    expect(JSON.stringify(changes)).not.toMatch(/CNRYFILE|old-pw/);
    expect(changes.map((change) => [change.path, change.sensitive])).toEqual([
      ['data[".pgpass"]', true],
      ['data[".netrc"]', true],
    ]);
  });

  it('hashes a value that holds a credential wherever it sits (ConfigMap data, an env value under a plain name)', () => {
    const url = 'postgres://app:s3cr3t-pw@db.internal:5432/shop';
    const configMap = (value: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings' },
      data: { DATABASE: value, LOG: 'info' },
    });
    const [data] = diffKubeObjects(configMap('postgres://app@db.internal:5432/shop'), configMap(url), full);
    expect(data).toEqual({
      path: 'data.DATABASE',
      before: hashSensitive('postgres://app@db.internal:5432/shop'),
      after: hashSensitive(url),
      sensitive: true,
    });
    const env = diffKubeObjects(
      deployment([{ name: 'api', env: [{ name: 'DATABASE', value: 'sqlite:///tmp/db' }] }]),
      deployment([{ name: 'api', env: [{ name: 'DATABASE', value: url }] }]),
      full,
    );
    expect(JSON.stringify(env)).not.toContain('s3cr3t-pw');
    expect(env[0]).toMatchObject({ sensitive: true });
  });

  it("hashes a container's command line when the tool is in command and its password in args", () => {
    const container = (args: string[]) => ({ name: 'backup', command: ['mysqldump'], args });
    const changed = diffKubeObjects(
      deployment([container(['-uroot', '-pCNRYSPLIT1', 'app'])]),
      deployment([container(['-uroot', '-pCNRYSPLIT2', 'app'])]),
      full,
    );
    expect(JSON.stringify(changed)).not.toMatch(/CNRYSPLIT/);
    expect(changed).toEqual([expect.objectContaining({ sensitive: true })]);
    const added = diffKubeObjects(deployment([]), deployment([container(['-pCNRYSPLIT3'])]), full);
    expect(JSON.stringify(added)).not.toContain('CNRYSPLIT3');
    // A port is no password: the change stays readable.
    const ports = diffKubeObjects(
      deployment([{ name: 'web', command: ['docker'], args: ['run', '-p', '80:80', 'nginx'] }]),
      deployment([{ name: 'web', command: ['docker'], args: ['run', '-p', '8080:80', 'nginx'] }]),
      full,
    );
    expect(JSON.stringify(ports)).toContain('8080:80');
  });

  it('folds stringData into data and drops the last-applied annotation that holds a plaintext copy', () => {
    const desired = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { token: 'abc' },
    };
    const live = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"stringData":{"token":"abc"}}' },
      },
      data: { token: Buffer.from('abc').toString('base64') },
    };
    expect(diffKubeObjects(normalizeObject(desired), normalizeObject(live), full)).toEqual([]);
  });

  it("reads a Secret's or ConfigMap's base64 as the server decodes it: line breaks in it are no drift", () => {
    // `base64 tls.crt` wraps at 76 columns, pasted into a block scalar with its final line break; the
    // server decodes it (Go's base64 skips \r and \n) and `kubectl get` shows it on one line.
    const pem = `-----BEGIN CERTIFICATE-----\n${'MIIBszCCAVmgAwIBAgIUQ'.repeat(8)}\n-----END CERTIFICATE-----\n`;
    const stored = Buffer.from(pem).toString('base64');
    const wrapped = `${stored.match(/.{1,76}/g)!.join('\n')}\n`;
    expect(wrapped).toContain('\n');
    const secret = (crt: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'api-tls', namespace: 'shop' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': crt },
    });
    const configMap = (bin: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'trust', namespace: 'shop' },
      binaryData: { 'ca.der': bin },
    });
    const compare = (desired: KubeObject, live: KubeObject) =>
      diffKubeObjects(normalizeObject(desired), normalizeObject(live), declared);
    expect(compare(secret(wrapped), secret(stored))).toEqual([]);
    expect(compare(secret(wrapped.replaceAll('\n', '\r\n')), secret(stored))).toEqual([]);
    expect(compare(configMap(wrapped), configMap(stored))).toEqual([]);
    // Other bytes are still drift, shown by hash only.
    const other = Buffer.from(pem.replace('MIIB', 'MIIC')).toString('base64');
    const [change] = compare(secret(wrapped), secret(other));
    expect(change).toMatchObject({ path: 'data["tls.crt"]', sensitive: true, after: hashSensitive(other) });
    // What is no base64 (the server would refuse it) is compared as written.
    expect(compare(secret('not base64!'), secret(stored))).toHaveLength(1);
  });

  it('does not take secret references for secrets', () => {
    const desired = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { volumes: [{ name: 'v', secret: { secretName: 'a' } }] },
    };
    const live = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { volumes: [{ name: 'v', secret: { secretName: 'b' } }] },
    };
    const [change] = diffKubeObjects(desired, live, full);
    expect(change).toMatchObject({ path: 'spec.volumes[0].secret.secretName', before: 'a', after: 'b' });
  });
});
