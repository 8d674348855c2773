import { describe, expect, it } from 'vitest';
import type { FindingDraft } from '../../../../functions/core/findings/model.js';
import { redactClusterFinding } from '../../../../functions/core/gitops/redact-finding.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';

/** The last pass of every cluster finding (issue 14 §6): whatever rule built it, no credential survives. */
const hash = createSensitiveHasher('redact-finding-test-salt');
const url = 'postgres://app:CNRYpw0001@db.internal/orders';
const token = 'ghp_CNRYtok0002x9Y8w7V6u5T4s3R2q1P0o9N8m7L6';
const plain = 'CNRYplain0003';

function draft(changes: NonNullable<FindingDraft['drift']>['changes']): FindingDraft {
  return {
    kind: 'cluster-drift',
    ruleId: 'cluster.drift',
    severity: 'medium',
    workspace: 'prod-eu',
    owner: 'platform',
    environment: 'prod',
    title: `ConfigMap x differs`,
    detail: `Argo CD reports: cannot reach ${url}`,
    evidence: { unhealthyResources: [{ message: `Authorization: Bearer ${token}` }] },
    remediation: { summary: 'review', steps: [`check ${url}`] },
    drift: { action: 'update', changes },
  };
}

describe('redactClusterFinding', () => {
  it('hashes credentials anywhere in a change (a whole added block too) and marks it sensitive; plain values stay', () => {
    const redacted = redactClusterFinding(
      draft([
        { path: 'data.mode', before: 'a', after: 'b', sensitive: false },
        {
          path: 'spec.template.spec.containers[0].env[3]',
          before: null,
          after: { name: 'EXTRA', value: url },
          sensitive: false,
        },
        {
          path: 'metadata.annotations',
          before: null,
          after: { 'example.com/source': token },
          sensitive: false,
        },
      ]),
      hash,
    );
    const [mode, env, annotations] = redacted.drift!.changes;
    expect(mode).toEqual({ path: 'data.mode', before: 'a', after: 'b', sensitive: false });
    expect(env).toEqual({
      path: 'spec.template.spec.containers[0].env[3]',
      before: null,
      after: { name: 'EXTRA', value: hash(url) },
      sensitive: true,
    });
    expect(annotations!.sensitive).toBe(true);
    expect(JSON.stringify(redacted)).not.toMatch(/CNRY/);
  });

  it('hashes the last-applied-configuration annotation whole, even where no pattern matches inside it', () => {
    const copy = JSON.stringify({ stringData: { password: plain } });
    const redacted = redactClusterFinding(
      draft([
        {
          path: 'metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]',
          before: '{}',
          after: copy,
          sensitive: false,
        },
        {
          path: 'metadata.annotations',
          before: null,
          after: { 'kubectl.kubernetes.io/last-applied-configuration': copy },
          sensitive: false,
        },
      ]),
      hash,
    );
    expect(redacted.drift!.changes.map((change) => change.sensitive)).toEqual([true, true]);
    expect(JSON.stringify(redacted)).not.toContain(plain);
  });

  it('redacts credentials in title, detail, evidence and remediation text; is idempotent', () => {
    const once = redactClusterFinding(draft([]), hash);
    expect(once.detail).toBe('Argo CD reports: cannot reach postgres://app:(redacted)@db.internal/orders');
    expect(JSON.stringify(once)).not.toMatch(/CNRY/);
    expect(redactClusterFinding(once, hash)).toEqual(once);
  });
});

/**
 * A secret given on a container's command line: the argument after a flag whose name looks secret,
 * or a flag and its value inside one string (`sh -c`). The `--flag=value` form is a value rule's.
 */
describe('redactClusterFinding: secrets passed as command-line arguments', () => {
  const secret = 'CNRYarg0004';
  const container = (args: string[]) => ({ name: 'api', image: 'registry.example.com/api:1', args });
  it.each([
    ['args, flag then value', 'spec.template.spec.containers[0].args', ['--db-password', secret]],
    ['command, single dash', 'spec.template.spec.containers[0].command', ['/app', '-token', secret]],
    ['args, camelCase flag', 'spec.template.spec.containers[0].args', ['--clientSecret', secret, '-v']],
    ['args, api key', 'spec.jobTemplate.spec.template.spec.containers[0].args', ['--api-key', secret]],
    [
      'sh -c string',
      'spec.template.spec.containers[0].command',
      ['sh', '-c', `exec /app --password ${secret}`],
    ],
    ["command, a tool's short option", 'spec.template.spec.containers[0].command', ['mysql', `-p${secret}`]],
    [
      'command, sshpass',
      'spec.template.spec.containers[0].command',
      ['sshpass', '-p', secret, 'ssh', 'host'],
    ],
    ['a whole added container', 'spec.template.spec.containers[1]', container(['--auth', secret])],
    [
      'a container with its tool in command and its password in args',
      'spec.template.spec.containers[1]',
      { name: 'backup', command: ['mysqldump'], args: ['-uroot', `-p${secret}`] },
    ],
    [
      'a whole added containers list',
      'spec.template.spec.containers',
      [container(['--db-password', secret])],
    ],
  ])('%s: hashed, marked sensitive', (_, path, after) => {
    const redacted = redactClusterFinding(draft([{ path, before: null, after, sensitive: false }]), hash);
    const [change] = redacted.drift!.changes;
    expect(change!.sensitive).toBe(true);
    expect(JSON.stringify(redacted)).not.toContain(secret);
    expect(JSON.stringify(change!.after)).toContain('(sensitive:');
  });

  it.each([
    ['a flag that names a file', ['--token-file', '/var/run/secrets/token']],
    ['a flag that is no secret', ['--log-level', 'debug']],
    ['a secret flag last', ['--verbose', '--insecure-skip-tls-verify']],
    ['a port', ['docker', 'run', '-p', '8080:80', 'nginx']],
    ['mysql prompting for its password', ['mysql', '-h', 'db', '-p', 'app_db']],
  ])('%s: kept as is', (_, args) => {
    const change = {
      path: 'spec.template.spec.containers[0].args',
      before: null,
      after: args,
      sensitive: false,
    };
    expect(redactClusterFinding(draft([change]), hash).drift!.changes).toEqual([change]);
  });
});
