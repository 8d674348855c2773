import { describe, expect, it } from 'vitest';
import { SENSITIVE_MARKER } from '../../../../functions/core/redaction/secrets.js';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { context, entry, hashSensitive, plan } from '../../../helpers/plan-builders.js';

/**
 * Secrets named in the two shapes the name rules missed, in attributes whose own names say nothing:
 * - JSON inside a string, its quotes escaped (`{\"password\":\"x\"}` in a script, a JSON document
 *   encoded twice): the name was not read past the backslash, and `password=\"x\"` redacted the
 *   backslash only;
 * - command-line options: `--db-password=x` (the dashes hid the name), `--token x`, and a list of
 *   arguments `["--api-key", "x"]` (ECS `command`, a container's `args`), as text or as a list
 *   attribute whose value element alone looks like nothing.
 * Each is planted in a create and in an update; no finding may hold it, and each change stays
 * visible as a hash.
 */
const CANARY = 'OPTCANARY5k';

const PLACES: Record<string, (secret: string) => unknown> = {
  'escaped JSON in a script': (secret) =>
    `#!/bin/sh\ncurl -d "{\\"password\\":\\"${secret}\\"}" https://api.internal/login\n`,
  'JSON encoded twice': (secret) => JSON.stringify(JSON.stringify({ client_secret: secret })),
  'escaped value after =': (secret) => `export APP_TOKEN=\\"${secret}\\"`,
  '--option=value': (secret) => `/app/server --port 8080 --db-password=${secret}`,
  '--option value': (secret) => `/app/server --api-token ${secret} --port 8080`,
  'JSON argument list': (secret) =>
    JSON.stringify([{ name: 'app', command: ['serve', '--api-key', secret] }]),
  'argument list attribute': (secret) => ['serve', '--db-password', secret, '--port', '8080'],
  'single-dash argument list': (secret) => ['-token', secret],
  // A tool's short password option, which names no secret: the tool says.
  'mysql -p in a script': (secret) => `#!/bin/bash\nmysqldump -h db -uroot -p${secret} app | gzip > /b.gz\n`,
  'tool argument list attribute': (secret) => ['mysql', '-uroot', `-p${secret}`, 'app'],
  'sshpass argument list attribute': (secret) => ['sshpass', '-p', secret, 'ssh', 'deploy@bastion'],
  // The tool in one list, its password in another (Kubernetes' command and args, ECS's entryPoint).
  'container command and args': (secret) => [{ command: ['mysql'], args: ['-uroot', `-p${secret}`] }],
  'ECS entryPoint and command': (secret) =>
    JSON.stringify([{ name: 'app', entryPoint: ['redis-cli'], command: ['-a', secret, 'ping'] }]),
  'redis-cli in container definitions': (secret) =>
    JSON.stringify([{ name: 'app', command: ['redis-cli', '-h', 'cache', '-a', secret, 'ping'] }]),
};

function plantedPlan(make: (secret: string) => unknown) {
  return plan({
    changes: [
      entry('aws_batch_job_queue.created', {
        actions: ['create'],
        after: { name: 'created', launch: make(`${CANARY}c`) },
      }),
      entry('aws_batch_job_queue.updated', {
        before: { name: 'updated', launch: make(`${CANARY}b`) },
        after: { name: 'updated', launch: make(`${CANARY}a`) },
      }),
    ],
  });
}

describe('secrets in escaped JSON and in command-line options', () => {
  it.each(Object.entries(PLACES))('%s: in no finding, each change visible as a hash', (_place, make) => {
    const result = evaluatePlan(plantedPlan(make), { ...context(), hashSensitive });
    expect(JSON.stringify(result)).not.toContain(CANARY);
    const launches = result.findings.flatMap((finding) =>
      (finding.drift?.changes ?? []).filter((change) => change.path.startsWith('launch')),
    );
    expect(launches.length).toBeGreaterThanOrEqual(2);
    for (const change of launches) expect(String(change.after)).toMatch(SENSITIVE_MARKER);
  });

  it('leave options and lists that name no secret as they are', () => {
    const raw = plan({
      changes: [
        entry('aws_batch_job_queue.plain', {
          before: { name: 'plain', launch: ['serve', '--port', '8080'] },
          after: { name: 'plain', launch: ['serve', '--port', '9090', '--password-file', '/run/pw'] },
        }),
        entry('aws_batch_job_queue.ports', {
          before: { name: 'ports', launch: ['docker', 'run', '-p', '80:80', 'nginx'] },
          after: { name: 'ports', launch: ['docker', 'run', '-p', '8181:80', 'nginx'] },
        }),
        entry('aws_batch_job_queue.prompt', {
          before: { name: 'prompt', launch: 'mkdir -p /srv && mysql -h db -u app -p app_db' },
          after: { name: 'prompt', launch: 'mkdir -p /srv && mysql -h db -u app -p app_db2' },
        }),
      ],
    });
    const text = JSON.stringify(evaluatePlan(raw, { ...context(), hashSensitive }).findings);
    expect(text).toContain('9090');
    expect(text).toContain('/run/pw');
    expect(text).toContain('8181:80');
    expect(text).toContain('-p app_db2');
    expect(text).not.toMatch(/\(sensitive:/);
  });
});
