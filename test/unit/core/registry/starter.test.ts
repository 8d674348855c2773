import { describe, expect, it } from 'vitest';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import {
  guessEnvironment,
  PLACEHOLDER_SOURCE_DIR,
  PLACEHOLDER_TEAM,
  placeholderProblems,
  readStarterListing,
  renderStarterRegistry,
  sanitizeId,
  workspaceIdFor,
  workspacesFromKeys,
} from '../../../../functions/core/registry/starter.js';
import { stateObjectKey } from '../../../../functions/core/registry/state-key.js';
import { checkRoutes } from '../../../../functions/core/routing/routes.js';
import { HEADER, WORKSPACE, yaml } from './helpers.js';

/** A line break or an invisible character written raw into the starter (terminal escapes, comment breaks). */
const RAW_INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point.
  /[\u0000-\u0009\u000b-\u001f\u007f-\u00a0\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/;

describe('starters from hostile state keys', () => {
  // Anyone who can put an object in the state bucket chooses these keys. Each must come back from the
  // written file as the same state object, and change nothing else in it.
  it.each([
    [
      'a line break that would end the lock comment and add a roleArn',
      'x\n    roleArn: arn:aws:iam::999999999999:role/attacker\n#.tfstate',
    ],
    ['a carriage return', 'a\rroleArn: x.tfstate'],
    ['a Unicode line separator', 'ls\u2028x.tfstate'],
    ['a next-line character (a line break in YAML 1.1)', 'nel\u0085x: 1.tfstate'],
    ['a terminal escape sequence', 'ctl\u001b[2J\u001b]0;title\u0007.tfstate'],
    ['an 8-bit CSI and DEL', 'c1\u009b2J\u007f.tfstate'],
    ['zero-width and bidi characters', 'zw\u200b\u202e.tfstate'],
    ['a byte order mark', '\ufeffbom.tfstate'],
    ['YAML indicators', '*a &b !c %d @e `f - g ? h # i: j.tfstate'],
    ['quotes and backslashes', `"q" 'r' \\s.tfstate`],
    ['a word YAML reads as a value', 'null'],
    ['a CLI workspace with a line break in the key', 'env:/blue/x\n    owner: evil\n#.tfstate'],
  ])('%s', (_name, stateKey) => {
    const workspaces = workspacesFromKeys([stateKey, `${stateKey}.tflock`]);
    expect(workspaces).toHaveLength(1);
    const text = renderStarterRegistry({
      bucket: 'tfstate',
      region: 'eu-west-1',
      workspaces,
      origin: `s3://tfstate/${stateKey}`,
      listed: true,
    });
    expect(text).not.toMatch(RAW_INVISIBLE);
    const plain = renderStarterRegistry({
      bucket: 'tfstate',
      region: 'eu-west-1',
      workspaces: workspacesFromKeys(['plain.tfstate', 'plain.tfstate.tflock']),
      origin: 's3://tfstate/plain.tfstate',
      listed: true,
    });
    expect(text.split('\n')).toHaveLength(plain.split('\n').length);
    const [workspace] = parseRegistry(text).workspaces;
    expect(stateObjectKey(workspace!)).toBe(stateKey);
    expect(workspace).not.toHaveProperty('roleArn');
    expect(workspace?.owner).toBe(PLACEHOLDER_TEAM);
  });

  it('leaves out keys no registry can name, and names the objects it looked at', () => {
    const listing = readStarterListing([
      '/lead.tfstate',
      '//double.tfstate',
      'ok.tfstate',
      'notes.txt',
      'other/x.tfstate',
    ]);
    expect(listing.workspaces.map((workspace) => workspace.key)).toEqual(['ok.tfstate', 'other/x.tfstate']);
    expect(listing.skipped).toEqual(['//double.tfstate', '/lead.tfstate']);
    expect(listing.inScope).toBe(5);
    expect(
      readStarterListing(['a/x.tfstate', 'b/y.tfstate', 'env:/blue/b/z.tfstate'], { prefix: 'b/' }).inScope,
    ).toBe(2);
  });

  it.each([
    ['the default workspace (Terraform keeps its state at the key itself)', 'env:/default/app.tfstate'],
    ['a name Terraform refuses (a space)', 'env:/a b/app.tfstate'],
    ['a name Terraform refuses (non-ASCII)', 'env:/prød/app.tfstate'],
    ['a backend key Terraform refuses', 'env:/blue//app.tfstate'],
  ])('env:/ with %s is a state of its own, named by its whole key', (_name, stateKey) => {
    const [workspace] = workspacesFromKeys([stateKey]);
    expect(workspace).toMatchObject({ key: stateKey, stateKey });
    expect(workspace?.workspace).toBeUndefined();
    const text = renderStarterRegistry({
      bucket: 'tfstate',
      region: 'eu-west-1',
      workspaces: [workspace!],
      origin: 'x',
    });
    expect(stateObjectKey(parseRegistry(text).workspaces[0]!)).toBe(stateKey);
  });
});

describe('workspacesFromKeys', () => {
  it('makes one workspace per state object, with ids and environments from the keys', () => {
    const workspaces = workspacesFromKeys([
      'payments/prod.tfstate',
      'payments/prod.tfstate.tflock',
      'network/terraform.tfstate',
      'network/terraform.tfstate.backup',
      'notes/readme.txt',
      'folder/',
    ]);
    expect(workspaces).toEqual([
      {
        id: 'network',
        environment: 'TODO-environment',
        key: 'network/terraform.tfstate',
        stateKey: 'network/terraform.tfstate',
        lockFile: false,
      },
      {
        id: 'payments-prod',
        environment: 'prod',
        key: 'payments/prod.tfstate',
        stateKey: 'payments/prod.tfstate',
        lockFile: true,
      },
    ]);
  });

  it('reads env:/<workspace>/<key> as a CLI workspace of that backend key', () => {
    const [blue, plain] = workspacesFromKeys([
      'env:/blue/network/terraform.tfstate',
      'network/terraform.tfstate',
    ]);
    expect(blue).toMatchObject({
      id: 'network-blue',
      key: 'network/terraform.tfstate',
      workspace: 'blue',
      workspaceKeyPrefix: 'env:',
      stateKey: 'env:/blue/network/terraform.tfstate',
    });
    expect(plain).toMatchObject({ id: 'network', key: 'network/terraform.tfstate' });
    expect(plain?.workspace).toBeUndefined();
    // The registry computes the same object key back from backend.key, workspace and prefix.
    expect(stateObjectKey({ backend: { bucket: 'b', region: 'eu-west-1', ...blue! } })).toBe(blue?.stateKey);
  });

  it('counts a key a lock names as a state, whatever its name', () => {
    const [state] = workspacesFromKeys(['apps/current', 'apps/current.tflock']);
    expect(state).toMatchObject({ key: 'apps/current', lockFile: true, id: 'apps-current' });
  });

  it('keeps states under the prefix, also below env:/<workspace>/', () => {
    const keys = [
      'team-a/app.tfstate',
      'team-b/app.tfstate',
      'env:/dev/team-a/app.tfstate',
      'env:/dev/team-b/x.tfstate',
    ];
    expect(workspacesFromKeys(keys, { prefix: 'team-a/' }).map((workspace) => workspace.stateKey)).toEqual([
      'env:/dev/team-a/app.tfstate',
      'team-a/app.tfstate',
    ]);
  });

  it('gives unique, valid ids when keys collide after sanitising', () => {
    const workspaces = workspacesFromKeys([
      'Payments/Prod.tfstate',
      'payments/prod.tfstate',
      'payments_/prod.tfstate',
    ]);
    const ids = workspaces.map((workspace) => workspace.id);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9][a-z0-9\-_.]{0,62}$/);
  });

  it('keeps ids within 63 characters, suffix included', () => {
    const long = `${'a'.repeat(80)}/x.tfstate`;
    const ids = workspacesFromKeys([long, `${'a'.repeat(80)}/X.tfstate`]).map((workspace) => workspace.id);
    expect(ids[0]?.length).toBe(63);
    expect(ids[1]).toMatch(/-2$/);
    expect(ids[1]?.length).toBeLessThanOrEqual(63);
  });
});

describe('ids and environments', () => {
  it.each([
    ['payments/prod.tfstate', undefined, 'payments-prod'],
    ['network/terraform.tfstate', undefined, 'network'],
    ['terraform.tfstate', undefined, 'terraform'],
    ['terraform.tfstate', 'blue', 'terraform-blue'],
    ['Team A/ünïcode state.tfstate', undefined, 'team-a-unicode-state'],
    ['ünïcødé/日本/prod.tfstate', undefined, 'unicode-prod'],
    ['Øresund/Straße/ŁÓDŹ.tfstate', undefined, 'oresund-strasse-lodz'],
    ['.tfstate', undefined, 'state'],
    ['__/--.tfstate', undefined, 'state'],
  ])('%s (workspace %s) → %s', (key, workspace, id) => {
    expect(workspaceIdFor(key, workspace)).toBe(id);
  });

  it('sanitises to the registry id charset', () => {
    expect(sanitizeId('-Foo..Bar_baz!')).toBe('foo..bar_baz');
  });

  it('guesses the environment from the last part that names one', () => {
    expect(guessEnvironment(['payments', 'production.tfstate'])).toBe('prod');
    expect(guessEnvironment(['stg-eu', 'app.tfstate'])).toBe('staging');
    expect(guessEnvironment(['contest', 'app.tfstate'])).toBe('TODO-environment');
  });

  it('never guesses prod for a key that says it is not production', () => {
    // Guessed prod, a workspace gets production severities and prod-only destinations.
    expect(guessEnvironment(['non-prod', 'app.tfstate'])).toBe('nonprod');
    expect(guessEnvironment(['accounts', 'nonprod_eu', 'app.tfstate'])).toBe('nonprod');
    expect(guessEnvironment(['app', 'non-production.tfstate'])).toBe('nonprod');
    expect(guessEnvironment(['pre-prod', 'app.tfstate'])).toBe('staging');
    expect(guessEnvironment(['app', 'pre_production.tfstate'])).toBe('staging');
    expect(guessEnvironment(['prod', 'app-prod.tfstate'])).toBe('prod');
  });
});

describe('renderStarterRegistry', () => {
  const workspaces = workspacesFromKeys([
    'payments/prod.tfstate',
    'payments/prod.tfstate.tflock',
    'env:/blue/network/terraform.tfstate',
    'yes.tfstate',
    '0123.tfstate',
  ]);
  const text = renderStarterRegistry({
    bucket: 'tfstate-prod',
    region: 'eu-west-1',
    workspaces,
    origin: 's3://tfstate-prod',
    listed: true,
  });

  it('parses with the real registry parser, backends filled in', () => {
    const registry = parseRegistry(text);
    expect(registry.owners).toEqual({
      fallback: PLACEHOLDER_TEAM,
      teams: [{ id: PLACEHOLDER_TEAM, destinations: [{ type: 'email', address: 'todo-team@example.com' }] }],
    });
    expect(registry.workspaces.map((workspace) => [workspace.id, workspace.backend])).toEqual([
      ['0123', { bucket: 'tfstate-prod', key: '0123.tfstate', region: 'eu-west-1' }],
      [
        'network-blue',
        {
          bucket: 'tfstate-prod',
          key: 'network/terraform.tfstate',
          region: 'eu-west-1',
          workspace: 'blue',
          workspaceKeyPrefix: 'env:',
        },
      ],
      ['payments-prod', { bucket: 'tfstate-prod', key: 'payments/prod.tfstate', region: 'eu-west-1' }],
      ['yes', { bucket: 'tfstate-prod', key: 'yes.tfstate', region: 'eu-west-1' }],
    ]);
    expect(registry.workspaces.map((workspace) => workspace.source)).toEqual(
      workspaces.map(() => ({ dir: PLACEHOLDER_SOURCE_DIR })),
    );
  });

  it('explains the TODOs, the lock file and the lock table it cannot see in comments', () => {
    expect(text).toMatch(/^# driftwatch\.yaml: a starter registry/);
    expect(text).toContain('routes --check');
    expect(text).toContain('# payments/prod.tfstate.tflock was listed: this backend locks with use_lockfile');
    expect(text).toContain('DynamoDB lock table');
    expect(text).toContain('source: { dir: TODO-path-to-the-terraform-root } # TODO:');
  });

  it('writes a known root and a lock table as given', () => {
    const rendered = renderStarterRegistry({
      bucket: 'b-state',
      region: 'us-east-1',
      origin: 'the backend block of infra',
      workspaces: [
        {
          id: 'infra',
          environment: 'dev',
          key: 'a: b.tfstate',
          stateKey: 'a: b.tfstate',
          lockFile: false,
          sourceDir: '../infra',
          lockTable: 'locks',
        },
      ],
    });
    expect(rendered).not.toContain('DynamoDB lock table');
    const [workspace] = parseRegistry(rendered).workspaces;
    expect(workspace?.source).toEqual({ dir: '../infra' });
    expect(workspace?.backend).toMatchObject({ key: 'a: b.tfstate', lockTable: 'locks' });
  });
});

describe('placeholderProblems', () => {
  it('lists every TODO of a starter with the path to fill and what belongs there', () => {
    const text = renderStarterRegistry({
      bucket: 'tfstate',
      region: 'eu-west-1',
      workspaces: workspacesFromKeys(['network/terraform.tfstate']),
      origin: 's3://tfstate',
    });
    const problems = placeholderProblems(parseRegistry(text));
    expect(problems.map((problem) => [problem.scope, problem.path.join('.')])).toEqual([
      ['owners', 'owners.fallback'],
      ['owners', 'owners.teams.0.id'],
      ['owners', 'owners.teams.0.destinations.0.address'],
      ['network', 'workspaces.0.owner'],
      ['network', 'workspaces.0.environment'],
      ['network', 'workspaces.0.source.dir'],
    ]);
    expect(problems[5]?.fix).toContain('Terraform root');
  });

  it('finds none in a filled-in registry (words that merely contain todo are not placeholders)', () => {
    const filled = yaml(
      ...HEADER,
      'workspaces:',
      ...WORKSPACE.map((row) => row.replace('infra/payments', 'infra/mastodon-todos')),
    );
    expect(placeholderProblems(parseRegistry(filled))).toEqual([]);
  });
});

describe('placeholders are the values init writes, not the word todo', () => {
  it('an estate with a todo service and team passes routes --check once the starter is filled in', () => {
    // What `init --bucket` writes for the states of a `todo` service, then filled in by its team.
    const text = renderStarterRegistry({
      bucket: 'todo-tfstate',
      region: 'eu-west-1',
      workspaces: workspacesFromKeys(['todo/prod.tfstate', 'env:/todo/api/terraform.tfstate']),
      origin: 's3://todo-tfstate',
    });
    const starter = parseRegistry(text);
    expect(starter.workspaces.map((workspace) => workspace.id)).toEqual(['api-todo', 'todo-prod']);
    expect(placeholderProblems(starter).map((problem) => problem.path.join('.'))).toEqual([
      'owners.fallback',
      'owners.teams.0.id',
      'owners.teams.0.destinations.0.address',
      'workspaces.0.owner',
      'workspaces.0.environment',
      'workspaces.0.source.dir',
      'workspaces.1.owner',
      'workspaces.1.source.dir',
    ]);
    const filled = text
      .replaceAll('todo-team@example.com', 'todo-oncall@example.com')
      .replaceAll(PLACEHOLDER_TEAM, 'todo')
      .replaceAll('TODO-environment', 'todo-staging')
      .replaceAll(PLACEHOLDER_SOURCE_DIR, 'services/todo-api');
    const registry = parseRegistry(filled);
    expect(placeholderProblems(registry)).toEqual([]);
    expect(checkRoutes(registry)).toEqual([]);
  });

  it('init writes no TODO comment beside a root whose name merely holds the word', () => {
    const [workspace] = workspacesFromKeys(['todo/prod.tfstate']);
    const text = renderStarterRegistry({
      bucket: 'tfstate',
      region: 'eu-west-1',
      workspaces: [{ ...workspace!, sourceDir: '../services/todo-api' }],
      origin: 'the backend block of ../services/todo-api/main.tf',
    });
    expect(text).toContain('    source: { dir: "../services/todo-api" }\n');
  });
});

describe('routes --check on a starter', () => {
  it('reports each placeholder left, with its path, although the placeholder team is routable', () => {
    const text = renderStarterRegistry({
      bucket: 'tfstate',
      region: 'eu-west-1',
      workspaces: workspacesFromKeys(['payments/prod.tfstate']),
      origin: 's3://tfstate',
    });
    const problems = checkRoutes(parseRegistry(text));
    expect(problems.map((problem) => problem.problem)).toEqual([
      'placeholder at owners.fallback (todo-team): replace it with the id of the team that receives what no route claims',
      "placeholder at owners.teams[0].id (todo-team): replace it with your team's id",
      'placeholder at owners.teams[0].destinations[0].address (todo-team@example.com): replace it with a real destination of this team',
      'placeholder at workspaces[0].owner (todo-team): replace it with the id of the team that owns this workspace',
      'placeholder at workspaces[0].source.dir (TODO-path-to-the-terraform-root): replace it with the Terraform root that writes this state, relative to the registry',
    ]);
    expect(problems[4]).toMatchObject({ scope: 'payments-prod', environment: 'prod', owner: 'todo-team' });
  });
});
