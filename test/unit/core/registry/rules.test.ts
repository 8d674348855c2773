import { describe, expect, it } from 'vitest';
import { redactText } from '../../../../functions/core/redaction/secrets.js';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import {
  expectProblem,
  HEADER,
  problemsOf,
  registryWithWorkspace,
  WORKSPACE,
  workspaceRegistry,
  yaml,
} from './helpers.js';

const ALLOWED_ID_CHARACTERS = "use 1-63 characters from a-z, 0-9, '-', '_' and '.'";
const SECRETS_ELSEWHERE = 'put secrets in the environment or a secrets manager, not the registry';

describe('unknown keys', () => {
  const team = HEADER.slice(0, 4);
  it.each([
    ['the root', yaml(...HEADER, 'zzz: 1'), 'zzz', 7],
    ['owners', yaml('version: 1', 'owners:', '  zzz: 1', ...HEADER.slice(2)), 'owners.zzz', 3],
    ['a team', yaml(...HEADER, '      zzz: 1'), 'owners.teams[0].zzz', 7],
    [
      'a destination',
      yaml(...team, '    - id: platform', '      destinations: [{ type: sqs, queueArn: x, zzz: 1 }]'),
      'owners.teams[0].destinations[0].zzz',
      6,
    ],
    ['a workspace', registryWithWorkspace('    zzz: 1'), 'workspaces[0].zzz', 13],
    ['a source', workspaceRegistry({ source: '{ dir: infra, zzz: 1 }' }), 'workspaces[0].source.zzz', 11],
    [
      'a backend',
      workspaceRegistry({ backend: '{ bucket: tfstate, key: k, region: eu-west-1, zzz: 1 }' }),
      'workspaces[0].backend.zzz',
      12,
    ],
    [
      'a route',
      registryWithWorkspace('    routes: [{ address: x, owner: platform, zzz: 1 }]'),
      'workspaces[0].routes[0].zzz',
      13,
    ],
    [
      'a route tag',
      registryWithWorkspace('    routes: [{ tag: { key: a, value: b, zzz: 1 }, owner: platform }]'),
      'workspaces[0].routes[0].tag.zzz',
      13,
    ],
    ['policies', yaml(...HEADER, 'policies: { zzz: 1 }'), 'policies.zzz', 7],
    ['policies.noise', yaml(...HEADER, 'policies: { noise: { zzz: true } }'), 'policies.noise.zzz', 7],
    [
      'an ignore rule',
      yaml(...HEADER, 'policies: { ignore: [{ address: a, path: p, reason: r, zzz: 1 }] }'),
      'policies.ignore[0].zzz',
      7,
    ],
    ['policies.severity', yaml(...HEADER, 'policies: { severity: { zzz: 1 } }'), 'policies.severity.zzz', 7],
    [
      'a severity override',
      yaml(...HEADER, 'policies: { severity: { overrides: [{ severity: low, zzz: 1 }] } }'),
      'policies.severity.overrides[0].zzz',
      7,
    ],
    [
      'policies.deletionGuard',
      yaml(...HEADER, 'policies: { deletionGuard: { zzz: 1 } }'),
      'policies.deletionGuard.zzz',
      7,
    ],
    ['locks', yaml(...HEADER, 'locks: { zzz: 1 }'), 'locks.zzz', 7],
    ['locks.staleAfter', yaml(...HEADER, 'locks: { staleAfter: { zzz: 1m } }'), 'locks.staleAfter.zzz', 7],
    ['schedule', yaml(...HEADER, 'schedule: { cron: "0 2 * * ? *", zzz: 1 }'), 'schedule.zzz', 7],
  ])('rejects an unknown key in %s', (_level, text, path, line) => {
    expectProblem(text, { path, line, message: "unknown key 'zzz'; expected one of: " });
  });

  it('points at the key and suggests the closest known key for a typo', () => {
    const text = yaml(
      ...HEADER,
      'workspaces:',
      ...WORKSPACE.slice(0, 4),
      '    bakend: { bucket: b-1, key: k, region: eu-west-1 }',
    );
    // One mistake, one line: the required key it meant is not reported missing as well.
    expect(problemsOf(text)).toStrictEqual([
      {
        path: 'workspaces[0].bakend',
        line: 12,
        column: 5,
        message: "unknown key 'bakend'; did you mean 'backend'? ('backend' is required)",
      },
    ]);
  });

  it('suggests a key that differs only in case', () => {
    expectProblem(registryWithWorkspace('    RoleArn: arn:aws:iam::111111111111:role/x'), {
      path: 'workspaces[0].RoleArn',
      line: 13,
      column: 5,
      message: "unknown key 'RoleArn'; did you mean 'roleArn'?",
    });
  });

  it('lists the known keys when nothing is close', () => {
    expectProblem(yaml(...HEADER, 'locks: { timeout: 1h }'), {
      path: 'locks.timeout',
      line: 7,
      column: 10,
      message: "unknown key 'timeout'; expected one of: staleAfter, confirmAfter",
    });
  });
});

describe('ids', () => {
  it.each([
    ['upper case', 'Payments'],
    ['a slash', 'payments/prod'],
    ['a leading dash', '-payments'],
    ['a space', '"payments prod"'],
    ['64 characters', 'a'.repeat(64)],
  ])('rejects a workspace id with %s and says which characters are allowed', (_case, id) => {
    expectProblem(workspaceRegistry({ id }), {
      path: 'workspaces[0].id',
      line: 8,
      column: 9,
      message: ALLOWED_ID_CHARACTERS,
    });
  });

  it('accepts the whole id alphabet, up to 63 characters', () => {
    const id = `0a-b_c.${'d'.repeat(56)}`;
    expect(id).toHaveLength(63);
    expect(parseRegistry(workspaceRegistry({ id })).workspaces[0]?.id).toBe(id);
  });

  it('rejects a team id outside the alphabet', () => {
    expectProblem(yaml(...HEADER.slice(0, 4), '    - id: Platform', HEADER[5] ?? ''), {
      path: 'owners.teams[0].id',
      line: 5,
      column: 11,
      message: `the value is not a valid id: ${ALLOWED_ID_CHARACTERS}`,
    });
  });

  it.each([
    ['owners.fallback', yaml('version: 1', 'owners:', '  fallback: Platform', ...HEADER.slice(3)), 3],
    ['workspaces[0].owner', workspaceRegistry({ owner: 'Platform' }), 9],
    ['workspaces[0].routes[0].owner', registryWithWorkspace('    routes: [{ address: x, owner: DBA }]'), 13],
  ])('rejects an owner reference outside the alphabet at %s, once', (path, text, line) => {
    const problems = problemsOf(text).filter((problem) => problem.path === path);
    expect(problems).toStrictEqual([
      { path, line, column: expect.any(Number), message: expect.stringContaining(ALLOWED_ID_CHARACTERS) },
    ]);
  });

  it('asks for quotes when an id is read as a number', () => {
    expectProblem(workspaceRegistry({ id: '2024' }), {
      path: 'workspaces[0].id',
      line: 8,
      message: 'expected text, got the number 2024 (put the value in quotes to keep it as text)',
    });
  });
});

describe('duplicate ids', () => {
  it('rejects a second workspace with the same id, naming both lines', () => {
    expect(problemsOf(registryWithWorkspace(...WORKSPACE))).toStrictEqual([
      {
        path: 'workspaces[1].id',
        line: 13,
        column: 9,
        message: "duplicate workspace id 'payments-prod' (first defined at line 8)",
      },
    ]);
  });

  it('rejects a workspace copied from another whose backend still names the same state object', () => {
    // The entry for staging copied from prod, its id and environment changed, its key not: prod would
    // be planned twice and reported under two ids, staging's state never read.
    const copy = (backend: string) => [
      '  - id: payments-staging',
      '    owner: platform',
      '    environment: staging',
      '    source: { dir: infra/payments }',
      `    backend: ${backend}`,
    ];
    const sameKey = '{ bucket: tfstate-prod, key: payments/terraform.tfstate, region: us-east-1 }';
    expect(problemsOf(registryWithWorkspace(...copy(sameKey)))).toStrictEqual([
      {
        path: 'workspaces[1].backend.key',
        line: 17,
        column: 43,
        message:
          "the same state object (bucket and key) as the workspace at line 12: each workspace has its own state; give the key of the state this workspace's root writes",
      },
    ]);
    // The same object named through a CLI workspace of the default prefix, and env:/default/ as the key.
    const cliWorkspace = yaml(
      ...HEADER,
      'workspaces:',
      ...WORKSPACE.slice(0, 4),
      '    backend: { bucket: tfstate-prod, key: env:/staging/payments/terraform.tfstate, region: eu-west-1 }',
      ...copy(
        '{ bucket: tfstate-prod, key: payments/terraform.tfstate, region: eu-west-1, workspace: staging }',
      ),
    );
    expect(problemsOf(cliWorkspace).map((problem) => [problem.path, problem.line])).toEqual([
      ['workspaces[1].backend.key', 17],
    ]);
    // Another bucket, another key, another CLI workspace or prefix: other states.
    for (const backend of [
      '{ bucket: tfstate-staging, key: payments/terraform.tfstate, region: eu-west-1 }',
      '{ bucket: tfstate-prod, key: payments/staging.tfstate, region: eu-west-1 }',
      '{ bucket: tfstate-prod, key: payments/terraform.tfstate, region: eu-west-1, workspace: staging }',
    ])
      expect(() => parseRegistry(registryWithWorkspace(...copy(backend)))).not.toThrow();
  });

  it('rejects a second team with the same id, naming both lines', () => {
    expect(problemsOf(yaml(...HEADER, ...HEADER.slice(4)))).toStrictEqual([
      {
        path: 'owners.teams[1].id',
        line: 7,
        column: 11,
        message: "duplicate team id 'platform' (first defined at line 5)",
      },
    ]);
  });
});

describe('owner references', () => {
  it('rejects a workspace owner that is not a team, listing the teams', () => {
    expectProblem(workspaceRegistry({ owner: 'payments' }), {
      path: 'workspaces[0].owner',
      line: 9,
      column: 12,
      message: "no team 'payments' in owners.teams (teams: platform)",
    });
  });

  it('rejects a route owner that is not a team, suggesting a close one', () => {
    expectProblem(registryWithWorkspace('    routes: [{ address: "module.db.*", owner: platfrom }]'), {
      path: 'workspaces[0].routes[0].owner',
      line: 13,
      message: "no team 'platfrom' in owners.teams; did you mean 'platform'?",
    });
  });

  it('rejects a fallback that is not a team', () => {
    expectProblem(yaml('version: 1', 'owners:', '  fallback: sre', ...HEADER.slice(3)), {
      path: 'owners.fallback',
      line: 3,
      column: 13,
      message: "no team 'sre' in owners.teams",
    });
  });
});

describe('owner references with a broken team list', () => {
  it('reports the broken team, not every reference as dangling', () => {
    const text = yaml(
      ...HEADER,
      '    - payments',
      'workspaces:',
      ...WORKSPACE.slice(0, 1),
      '    owner: payments',
      ...WORKSPACE.slice(2),
    );
    expect(problemsOf(text)).toStrictEqual([
      {
        path: 'owners.teams[1]',
        line: 7,
        column: 7,
        message: 'expected a mapping (key: value), got text',
      },
    ]);
  });
});

describe('top level', () => {
  it.each([
    ['2', 'must be 1, the only registry version this driftwatch understands'],
    ['"1"', 'must be 1'],
  ])('rejects version %s', (version, message) => {
    expectProblem(yaml(`version: ${version}`, ...HEADER.slice(1)), {
      path: 'version',
      line: 1,
      column: 10,
      message,
    });
  });

  it('requires version, at the line of the root mapping', () => {
    expectProblem(yaml(...HEADER.slice(1)), {
      path: 'version',
      line: 1,
      column: 1,
      message: 'required: add `version: 1`',
    });
  });

  it('requires owners with a fallback', () => {
    expectProblem(yaml('version: 1', 'workspaces: []'), {
      path: 'owners',
      line: 1,
      column: 1,
      message: 'required',
    });
    expectProblem(yaml('version: 1', 'owners:', ...HEADER.slice(3)), {
      path: 'owners.fallback',
      line: 3,
      message: 'required',
    });
  });
});

describe('workspace values', () => {
  it.each([
    [
      'a key starting with /',
      '{ bucket: tfstate, key: /payments.tfstate, region: eu-west-1 }',
      'key',
      "must not start with '/'",
    ],
    [
      'a key naming a folder',
      '{ bucket: tfstate, key: payments/, region: eu-west-1 }',
      'key',
      "remove the trailing '/'",
    ],
    [
      'a region that is a name',
      '{ bucket: tfstate, key: k, region: Ireland }',
      'region',
      'the value is not an AWS region',
    ],
    [
      'a region in capitals',
      '{ bucket: tfstate, key: k, region: EU-WEST-1 }',
      'region',
      'is not an AWS region',
    ],
    [
      'a region without number',
      '{ bucket: tfstate, key: k, region: eu-west }',
      'region',
      'is not an AWS region',
    ],
    [
      'a bucket in capitals',
      '{ bucket: TfState, key: k, region: eu-west-1 }',
      'bucket',
      'use 3-63 characters from a-z',
    ],
    ['a two-letter bucket', '{ bucket: tf, key: k, region: eu-west-1 }', 'bucket', 'use 3-63 characters'],
    [
      'a bucket with ..',
      '{ bucket: tf..state, key: k, region: eu-west-1 }',
      'bucket',
      "must not contain '..'",
    ],
    [
      'a bucket like an IP',
      '{ bucket: 10.0.0.1, key: k, region: eu-west-1 }',
      'bucket',
      'must not look like an IP address',
    ],
    [
      'a reserved bucket prefix',
      '{ bucket: xn--state, key: k, region: eu-west-1 }',
      'bucket',
      "'xn--' is reserved",
    ],
    [
      'a reserved bucket suffix',
      '{ bucket: state-s3alias, key: k, region: eu-west-1 }',
      'bucket',
      "'-s3alias' is reserved",
    ],
    [
      'a lock table with spaces',
      '{ bucket: tfstate, key: k, region: eu-west-1, lockTable: "my locks" }',
      'lockTable',
      'DynamoDB',
    ],
    [
      'a key prefix ending in /',
      '{ bucket: tfstate, key: k, region: eu-west-1, workspaceKeyPrefix: env/ }',
      'workspaceKeyPrefix',
      "must not start or end with '/'",
    ],
    // Terraform takes a workspace name only when URL path escaping leaves it as it is.
    ...['team/blue', 'a b', 'prød', 'a%20b', 'a;b', 'a,b', 'a?b', 'a#b', 'tab\\tx'].map(
      (name): [string, string, string, string] => [
        `the CLI workspace ${JSON.stringify(name)}`,
        `{ bucket: tfstate, key: k, region: eu-west-1, workspace: "${name}" }`,
        'workspace',
        'is not a name Terraform gives a workspace',
      ],
    ),
  ])('rejects a backend with %s', (_case, backend, field, message) => {
    expectProblem(workspaceRegistry({ backend }), {
      path: `workspaces[0].backend.${field}`,
      line: 12,
      message,
    });
  });

  it.each(['blue', 'feature-1.2_x', 'a~b', 'env:prod', 'a$b&c+d=e@f', 'UPPER'])(
    'accepts the CLI workspace %s',
    (name) => {
      const backend = `{ bucket: tfstate, key: k, region: eu-west-1, workspace: "${name}" }`;
      expect(parseRegistry(workspaceRegistry({ backend })).workspaces[0]?.backend.workspace).toBe(name);
    },
  );

  it.each([
    ['a user ARN', 'arn:aws:iam::111111111111:user/driftwatch'],
    ['a short account id', 'arn:aws:iam::11111111111:role/driftwatch'],
    ['a role name only', 'driftwatch-read'],
    ['an STS session ARN', 'arn:aws:sts::111111111111:assumed-role/driftwatch/session'],
  ])('rejects a roleArn that is %s', (_case, roleArn) => {
    expectProblem(registryWithWorkspace(`    roleArn: ${roleArn}`), {
      path: 'workspaces[0].roleArn',
      line: 13,
      column: 14,
      message: 'is not an IAM role ARN such as arn:aws:iam::111111111111:role/driftwatch-read',
    });
  });

  it.each([
    'arn:aws:iam::111111111111:role/driftwatch-read',
    'arn:aws-us-gov:iam::111111111111:role/path/to/driftwatch+read@x',
    'arn:aws-cn:iam::111111111111:role/r',
  ])('accepts the role ARN %s', (roleArn) => {
    expect(parseRegistry(registryWithWorkspace(`    roleArn: ${roleArn}`)).workspaces[0]?.roleArn).toBe(
      roleArn,
    );
  });

  it.each([
    ['an S3 URI without scheme', '{ s3: bundles/payments.tgz }', 'source.s3', 'expected s3://bucket/key'],
    ['an S3 URI without key', '{ s3: "s3://bundles" }', 'source.s3', 'expected s3://bucket/key'],
    [
      'an S3 URI with a bad bucket',
      '{ s3: "s3://Bundles/p.tgz" }',
      'source.s3',
      'its bucket is not a valid S3 bucket name',
    ],
    ['neither dir nor s3', '{ path: infra }', 'source', "needs 'dir' or 's3' (exactly one)"],
    [
      'both dir and s3',
      '{ dir: infra, s3: "s3://bundles/p.tgz" }',
      'source',
      "give either 'dir' or 's3', not both",
    ],
    ['a path that climbs out', '{ dir: infra, path: ../other }', 'source.path', "must not contain '..'"],
    ['an absolute path', '{ s3: "s3://bundles/p.tgz", path: /infra }', 'source.path', 'must be relative'],
    ['an empty dir', '{ dir: "" }', 'source.dir', 'must not be empty'],
  ])('rejects a source with %s', (_case, source, field, message) => {
    expectProblem(workspaceRegistry({ source }), { path: `workspaces[0].${field}`, line: 11, message });
  });

  it('accepts a dir with a path inside it', () => {
    const registry = parseRegistry(workspaceRegistry({ source: '{ dir: infra, path: payments }' }));
    expect(registry.workspaces[0]?.source).toStrictEqual({ dir: 'infra', path: 'payments' });
  });

  it('reports a missing dir or s3 together with an unknown key and a bad path', () => {
    const problems = problemsOf(workspaceRegistry({ source: '{ dri: infra, path: ../x }' }));
    expect(problems.map((problem) => [problem.path, problem.message])).toStrictEqual([
      ['workspaces[0].source', "needs 'dir' or 's3' (exactly one)"],
      ['workspaces[0].source.dri', "unknown key 'dri'; did you mean 'dir'?"],
      ['workspaces[0].source.path', "must not contain '..' (it must stay inside the source)"],
    ]);
  });

  it.each([
    [
      'both address and tag',
      '{ address: x, tag: { key: Owner, value: dba }, owner: platform }',
      "give either 'address' or 'tag', not both",
    ],
    ['neither address nor tag', '{ owner: platform }', "needs 'address' or 'tag' (exactly one)"],
  ])('rejects a route with %s', (_case, route, message) => {
    expectProblem(registryWithWorkspace(`    routes: [${route}]`), {
      path: 'workspaces[0].routes[0]',
      line: 13,
      column: 14,
      message,
    });
  });

  it('rejects a Terraform version that is neither a version nor a constraint', () => {
    expectProblem(registryWithWorkspace('    terraformVersion: "~> 1.x"'), {
      path: 'workspaces[0].terraformVersion',
      line: 13,
      message: 'the value is neither a Terraform version such as 1.11.4 nor a constraint',
    });
  });

  it('rejects an engine other than terraform or opentofu', () => {
    expectProblem(registryWithWorkspace('    engine: tofu'), {
      path: 'workspaces[0].engine',
      line: 13,
      message: 'expected terraform or opentofu',
    });
  });
});

describe('env', () => {
  it.each([
    ['starting with a digit', '1TF_VAR', 'workspaces[0].env["1TF_VAR"]'],
    ['with a dash', 'TF-VAR', 'workspaces[0].env.TF-VAR'],
  ])('rejects a name %s, pointing at the name', (_case, name, path) => {
    expectProblem(registryWithWorkspace(`    env: { ${name}: x }`), {
      path,
      line: 13,
      column: 12,
      message: `'${name}' is not an environment variable name`,
    });
  });

  it.each([
    'TF_VAR_db_password',
    'GITHUB_TOKEN',
    'AWS_ACCESS_KEY_ID',
    'my_secret',
    'AWS_SESSION_TOKEN',
    // The names redaction calls secret (docs/security.md), not only the four substrings.
    'TF_VAR_api_key',
    'TF_VAR_apikey',
    'TF_VAR_db_passwd',
    'TF_VAR_private_key',
  ])('rejects %s as a secret', (name) => {
    expectProblem(registryWithWorkspace(`    env: { ${name}: hunter2 }`), {
      path: `workspaces[0].env.${name}`,
      line: 13,
      column: 12,
      message: `'${name}' looks like a secret; ${SECRETS_ELSEWHERE}`,
    });
  });

  it.each([
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['a PEM private key', '"-----BEGIN RSA PRIVATE KEY-----\\nMIIE..."'],
    ['a GitHub token', 'ghp_0123456789abcdefghijABCDEFGHIJ012345'],
    ['a URL with a password', '"postgres://app:hunter2hunter2@db.example.com/app"'],
  ])('rejects a value that is %s whatever its name', (_case, value) => {
    expectProblem(registryWithWorkspace(`    env: { TF_VAR_x: ${value} }`), {
      path: 'workspaces[0].env.TF_VAR_x',
      line: 13,
      message: `the value looks like a secret; ${SECRETS_ELSEWHERE}`,
    });
  });

  it('words its secret problems so that the redaction of every CLI error line leaves them whole', () => {
    // `secret: put ...` reads as a name and its value: the CLI printed "secret: (redacted) secrets in ...".
    const problems = problemsOf(
      registryWithWorkspace('    env: { TF_VAR_db_password: hunter2, TF_VAR_x: AKIAIOSFODNN7EXAMPLE }'),
    );
    expect(problems.length).toBe(2);
    for (const problem of problems) expect(redactText(problem.message)).toBe(problem.message);
  });

  it('rejects numbers, which YAML would silently reformat', () => {
    expectProblem(registryWithWorkspace('    env: { TF_VAR_count: 010 }'), {
      path: 'workspaces[0].env.TF_VAR_count',
      line: 13,
      message: 'expected text, got the number 10 (put the value in quotes to keep it as text)',
    });
  });

  it('reports bad names and bad values together', () => {
    const problems = problemsOf(registryWithWorkspace('    env: { TF_VAR_a: 1, API_TOKEN: x }'));
    expect(problems.map((problem) => problem.path)).toStrictEqual([
      'workspaces[0].env.TF_VAR_a',
      'workspaces[0].env.API_TOKEN',
    ]);
  });

  it.each([
    ['TF_LOG', "Terraform's debug log"],
    ['TF_LOG_PATH', "Terraform's debug log"],
    ['TF_CLI_CONFIG_FILE', 'which providers and CLI configuration'],
    ['TF_PLUGIN_CACHE_DIR', 'which providers and CLI configuration'],
    ['TF_DATA_DIR', 'which providers and CLI configuration'],
    ['TF_REATTACH_PROVIDERS', 'which providers and CLI configuration'],
    ['TF_CLI_ARGS_plan', 'adds arguments to every terraform command'],
    ['TF_WORKSPACE', 'use backend.workspace'],
    ['AWS_PROFILE', 'credentials come from the workspace roleArn'],
    ['AWS_SHARED_CREDENTIALS_FILE', 'credentials come from the workspace roleArn'],
    ['AWS_ENDPOINT_URL_S3', 'another endpoint'],
    ['PATH', 'which programs run'],
    ['LD_PRELOAD', 'which programs run'],
    ['DYLD_INSERT_LIBRARIES', 'which programs run'],
    ['NODE_OPTIONS', 'which programs run'],
    ['GIT_SSH_COMMAND', 'which programs run'],
    ['HOME', 'read and write files'],
    ['TMPDIR', 'read and write files'],
    ['SSL_CERT_FILE', 'TLS certificates'],
    ['TF_IN_AUTOMATION', "not allowed in a workspace's env (allowed"],
    ['FOO', "not allowed in a workspace's env (allowed"],
  ])('refuses %s, which could weaken the scan, and says what is allowed', (name, reason) => {
    expectProblem(registryWithWorkspace(`    env: { ${name}: x }`), {
      path: `workspaces[0].env.${name}`,
      line: 13,
      column: 12,
      message: `'${name}' is not allowed in a workspace's env`,
    });
    const [problem] = problemsOf(registryWithWorkspace(`    env: { ${name}: x }`));
    expect(problem?.message).toContain(reason);
    expect(problem?.message).toContain('allowed: TF_VAR_<name>, AWS_REGION, AWS_DEFAULT_REGION');
  });

  it('accepts TF_VAR_* and the region variables', () => {
    const parsed = parseRegistry(
      registryWithWorkspace(
        '    env: { TF_VAR_name: a, AWS_REGION: eu-west-1, AWS_DEFAULT_REGION: eu-west-1 }',
      ),
    );
    expect(parsed.workspaces[0]?.env).toStrictEqual({
      TF_VAR_name: 'a',
      AWS_REGION: 'eu-west-1',
      AWS_DEFAULT_REGION: 'eu-west-1',
    });
  });

  it('accepts proxies only where the workspace allows them', () => {
    expectProblem(registryWithWorkspace('    env: { HTTPS_PROXY: "http://proxy:3128" }'), {
      path: 'workspaces[0].env.HTTPS_PROXY',
      line: 13,
      message: "'HTTPS_PROXY' routes provider traffic through a proxy: set allowProxyEnv: true",
    });
    const parsed = parseRegistry(
      registryWithWorkspace(
        '    env: { HTTPS_PROXY: "http://proxy:3128", no_proxy: "169.254.169.254" }',
        '    allowProxyEnv: true',
      ),
    );
    expect(parsed.workspaces[0]?.env).toStrictEqual({
      HTTPS_PROXY: 'http://proxy:3128',
      no_proxy: '169.254.169.254',
    });
  });
});

describe('destinations', () => {
  const withDestination = (destination: string) =>
    yaml(...HEADER.slice(0, 5), `      destinations: [${destination}]`);

  it.each([
    [
      'an unknown type',
      '{ type: slack, channel: C1 }',
      'destinations[0].type',
      'must be one of: chatbot-slack, email, https, sqs; got text',
    ],
    [
      'no type',
      '{ address: a@example.com }',
      'destinations[0].type',
      'required (one of: chatbot-slack, email, https, sqs)',
    ],
    [
      'a bad email',
      '{ type: email, address: oncall }',
      'destinations[0].address',
      'the value is not an email address',
    ],
    [
      'a plain http url',
      '{ type: https, url: "http://hooks.example.com/x" }',
      'destinations[0].url',
      'must use https://',
    ],
    [
      'credentials in the url',
      '{ type: https, url: "https://user:pw@hooks.example.com" }',
      'destinations[0].url',
      SECRETS_ELSEWHERE,
    ],
    [
      'a bad queue ARN',
      '{ type: sqs, queueArn: "https://sqs.eu-west-1.amazonaws.com/1/q" }',
      'destinations[0].queueArn',
      'is not an SQS queue ARN',
    ],
    [
      'a Slack channel name',
      '{ type: chatbot-slack, workspace: T0123, channel: "#ops" }',
      'destinations[0].channel',
      'not the #name',
    ],
    [
      'an empty environment list',
      '{ type: email, address: a@example.com, environments: [] }',
      'destinations[0].environments',
      'must list at least one environment',
    ],
  ])('rejects %s', (_case, destination, field, message) => {
    expectProblem(withDestination(destination), { path: `owners.teams[0].${field}`, line: 6, message });
  });

  it('rejects a team without destinations', () => {
    expectProblem(withDestination(''), {
      path: 'owners.teams[0].destinations',
      line: 6,
      column: 21,
      message: 'must list at least one destination',
    });
  });
});

describe('policies', () => {
  const ignoreUntil = (until: string) =>
    yaml(
      ...HEADER,
      'policies:',
      '  ignore:',
      `    - { address: "aws_instance.*", path: tags, reason: managed elsewhere, until: ${until} }`,
    );

  it.each([
    ['a day that does not exist', '2027-02-30'],
    ['month 13', '2027-13-01'],
    ['a two-digit year', '27-03-01'],
    ['a date in another order', '01.03.2027'],
  ])('rejects an until that is %s', (_case, until) => {
    expectProblem(ignoreUntil(until), {
      path: 'policies.ignore[0].until',
      line: 9,
      message: 'is not a date: use YYYY-MM-DD',
    });
  });

  it.each([
    ['plain', '2027-03-01'],
    ['quoted', '"2027-03-01"'],
    ['a YAML timestamp (a Date)', '!!timestamp 2027-03-01'],
  ])('accepts an until that is %s and keeps it as YYYY-MM-DD', (_case, until) => {
    expect(parseRegistry(ignoreUntil(until)).policies.ignore[0]?.until).toBe('2027-03-01');
  });

  it('rejects a timestamp with a time of day', () => {
    expectProblem(ignoreUntil('!!timestamp 2027-03-01T10:00:00Z'), {
      path: 'policies.ignore[0].until',
      line: 9,
      message: 'use a date without a time (YYYY-MM-DD), not 2027-03-01T10:00:00.000Z',
    });
  });

  it('requires a reason for every ignore rule', () => {
    expectProblem(
      yaml(...HEADER, 'policies:', '  ignore:', '    - { address: "aws_instance.*", path: tags }'),
      {
        path: 'policies.ignore[0].reason',
        line: 9,
        column: 7,
        message: 'required',
      },
    );
  });

  it.each(['urgent', 'LOW', 'warning'])('rejects severity %s', (severity) => {
    expectProblem(
      yaml(
        ...HEADER,
        `policies: { severity: { overrides: [{ ruleId: drift.update, severity: ${severity} }] } }`,
      ),
      {
        path: 'policies.severity.overrides[0].severity',
        line: 7,
        message: 'must be one of: critical, high, medium, low, info',
      },
    );
  });

  it.each(['0', '-0.5', '1.5'])('rejects deletion guard ratio %s', (ratio) => {
    expectProblem(yaml(...HEADER, `policies: { deletionGuard: { ratio: ${ratio} } }`), {
      path: 'policies.deletionGuard.ratio',
      line: 7,
      column: 37,
      message: 'must be greater than 0 and at most 1',
    });
  });

  it('accepts a deletion guard ratio of exactly 1', () => {
    expect(
      parseRegistry(yaml(...HEADER, 'policies: { deletionGuard: { ratio: 1 } }')).policies.deletionGuard
        .ratio,
    ).toBe(1);
  });

  it('rejects a noise flag that is not a boolean (YAML 1.2 reads `yes` as text)', () => {
    expectProblem(yaml(...HEADER, 'policies: { noise: { equivalentJson: yes } }'), {
      path: 'policies.noise.equivalentJson',
      line: 7,
      message: 'expected true or false, got text',
    });
  });
});

describe('locks', () => {
  it.each([
    ['words', '"1 hour"', 'the value is not a duration'],
    ['a bare number as text', '"90"', 'the value is not a duration'],
    ['a bare number', '90', 'expected a duration such as 30m, 1h, 2h30m, 90s'],
    ['units out of order', '30m1h', 'the value is not a duration'],
    ['zero', '0m', 'must be longer than zero'],
  ])('rejects a duration that is %s', (_case, duration, message) => {
    expectProblem(yaml(...HEADER, `locks: { staleAfter: { apply: ${duration} } }`), {
      path: 'locks.staleAfter.apply',
      line: 7,
      column: 31,
      message,
    });
  });
});

describe('schedule', () => {
  it.each([
    ['a five-field cron', '"0 2 * * *"', 'cron', 'expected an EventBridge cron expression with 6 fields'],
    [
      'both day fields set',
      '"0 2 * * * *"',
      'cron',
      "exactly one of day-of-month and day-of-week must be '?'",
    ],
    ['the cron( ) wrapper', '"cron(0 2 * * ? *)"', 'cron', "without 'cron( )'"],
    ['minute 61', '"61 2 * * ? *"', 'cron', '61 is out of range for minutes (0-59)'],
    ['letters in the hour', '"0 two * * ? *"', 'cron', "'two' is not a valid hours field"],
  ])('rejects %s', (_case, cron, field, message) => {
    expectProblem(yaml(...HEADER, `schedule: { cron: ${cron}, timezone: UTC }`), {
      path: `schedule.${field}`,
      line: 7,
      message,
    });
  });

  it.each([
    '0/15 * * * ? *',
    '0 8 ? * MON-FRI *',
    '0 12 L * ? *',
    '0 10 ? * 6#3 *',
    '15 10 ? * 6L 2027-2030',
  ])('accepts the cron expression %s', (cron) => {
    expect(parseRegistry(yaml(...HEADER, `schedule: { cron: "${cron}" }`)).schedule?.cron).toBe(cron);
  });

  it.each([
    ['Mars/Olympus', 'the value is not an IANA time zone'],
    ['"+01:00"', 'the value is not an IANA time zone'],
    ['europe/berlin', "time zone names are case-sensitive: did you mean 'Europe/Berlin'?"],
  ])('rejects time zone %s', (timezone, message) => {
    expectProblem(yaml(...HEADER, `schedule: { cron: "0 2 * * ? *", timezone: ${timezone} }`), {
      path: 'schedule.timezone',
      line: 7,
      column: 44,
      message,
    });
  });

  it.each(['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+2'])(
    'accepts time zone %s',
    (timezone) => {
      expect(
        parseRegistry(yaml(...HEADER, `schedule: { cron: "0 2 * * ? *", timezone: ${timezone} }`)).schedule
          ?.timezone,
      ).toBe(timezone);
    },
  );
});

describe('workspace var files', () => {
  it('must stay inside the Terraform root', () => {
    expectProblem(registryWithWorkspace('    varFiles: [env/prod.tfvars, ../secrets.tfvars]'), {
      path: 'workspaces[0].varFiles[1]',
      line: 13,
      message: "must not contain '..'",
    });
  });
});
