import { describe, expect, it } from 'vitest';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import { expectProblem, HEADER, problemsOf, registryWithWorkspace, WORKSPACE, yaml } from './helpers.js';

const KNOWN_HOSTS =
  'git.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl';

/** Private module credentials: moduleSources and registries, top level and per workspace. */
describe('registry: private module credentials', () => {
  it('reads top-level lists into every workspace; a workspace list replaces them ([] gives none)', () => {
    const registry = parseRegistry(
      yaml(
        ...HEADER,
        'moduleSources:',
        '  - { host: git.example.com, https: { token: { secretsManager: git/token } } }',
        `  - { host: github.com, ssh: { privateKey: { env: DEPLOY_KEY }, knownHosts: "${KNOWN_HOSTS.replace('git.example.com', 'github.com')}" } }`,
        'registries: [{ host: tfe.example.com, token: { secretsManager: tfe/token } }]',
        'workspaces:',
        ...WORKSPACE,
        '  - id: own',
        '    owner: platform',
        '    environment: prod',
        '    source: { dir: infra/own }',
        '    backend: { bucket: tfstate-prod, key: own/terraform.tfstate, region: eu-west-1 }',
        '    moduleSources: [{ host: git.example.com, https: { token: { env: OWN_TOKEN }, username: oauth2 } }]',
        '    registries: []',
      ),
    );
    const [shared, own] = registry.workspaces;
    expect(shared?.moduleSources).toEqual([
      {
        host: 'git.example.com',
        https: { token: { secretsManager: 'git/token' }, username: 'x-access-token' },
      },
      {
        host: 'github.com',
        ssh: {
          privateKey: { env: 'DEPLOY_KEY' },
          knownHosts: KNOWN_HOSTS.replace('git.example.com', 'github.com'),
        },
      },
    ]);
    expect(shared?.registries).toEqual([{ host: 'tfe.example.com', token: { secretsManager: 'tfe/token' } }]);
    expect(own?.moduleSources).toEqual([
      { host: 'git.example.com', https: { token: { env: 'OWN_TOKEN' }, username: 'oauth2' } },
    ]);
    expect(own?.registries).toBeUndefined();
    // The top-level lists are resolved into the workspaces, not kept beside them.
    expect(Object.keys(registry)).not.toContain('moduleSources');
  });

  it('a registry without module credentials leaves workspaces as they were written', () => {
    const workspace = parseRegistry(registryWithWorkspace()).workspaces[0]!;
    expect('moduleSources' in workspace || 'registries' in workspace).toBe(false);
  });

  it.each([
    ['https://git.example.com', 'is a URL: give the host name only'],
    ['git.example.com/org', 'has a path'],
    ['Git.Example.com', 'must be lower case'],
    ['git@git.example.com', 'without a user name'],
    ['git.example.com:99999', 'is not a TCP port'],
  ])('refuses host %s at its key', (host, message) => {
    expectProblem(
      registryWithWorkspace(`    moduleSources: [{ host: "${host}", https: { token: { env: T } } }]`),
      { path: 'workspaces[0].moduleSources[0].host', line: 13, message },
    );
  });

  it('accepts internationalised host names (Terraform and git get them in punycode)', () => {
    const workspace = parseRegistry(
      registryWithWorkspace('    registries: [{ host: "café.example.fr", token: { env: T } }]'),
    ).workspaces[0]!;
    expect(workspace.registries?.[0]?.host).toBe('café.example.fr');
  });

  it('an entry needs https or ssh, and unknown keys get a did-you-mean', () => {
    expectProblem(registryWithWorkspace('    moduleSources: [{ host: git.example.com }]'), {
      path: 'workspaces[0].moduleSources[0]',
      line: 13,
      message: "needs 'https' or 'ssh'",
    });
    expectProblem(
      registryWithWorkspace('    moduleSources: [{ host: git.example.com, https: { tokn: { env: T } } }]'),
      { path: 'workspaces[0].moduleSources[0].https.tokn', line: 13, message: "did you mean 'token'" },
    );
  });

  it('refuses a token written in place of its reference, without printing it', () => {
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const problems = problemsOf(
      registryWithWorkspace(`    registries: [{ host: tfe.example.com, token: "${token}" }]`),
    );
    expect(problems.map((problem) => problem.path)).toContain('workspaces[0].registries[0].token');
    expect(JSON.stringify(problems)).not.toContain(token);
  });

  it('ssh: knownHosts is required, must be known_hosts lines for the host, and never a private key', () => {
    const ssh = (knownHosts: string) =>
      registryWithWorkspace(
        `    moduleSources: [{ host: git.example.com, ssh: { privateKey: { env: K }, knownHosts: "${knownHosts}" } }]`,
      );
    expectProblem(
      registryWithWorkspace(
        '    moduleSources: [{ host: git.example.com, ssh: { privateKey: { env: K } } }]',
      ),
      { path: 'workspaces[0].moduleSources[0].ssh.knownHosts', line: 13, message: 'required' },
    );
    expectProblem(ssh('git.example.com is trusted'), {
      path: 'workspaces[0].moduleSources[0].ssh.knownHosts',
      line: 13,
      message: 'entry 1 is not a known_hosts line',
    });
    expectProblem(ssh(KNOWN_HOSTS.replace('git.example.com', 'other.example.com')), {
      path: 'workspaces[0].moduleSources[0].ssh.knownHosts',
      line: 13,
      message: 'has no line for git.example.com',
    });
    const pasted = '-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAA\\n';
    const problems = problemsOf(ssh(pasted));
    expect(problems.find((problem) => problem.path.endsWith('knownHosts'))?.message).toContain('private key');
    expect(JSON.stringify(problems)).not.toContain('b3BlbnNzaC1rZXktdjEAAAAA');
    // A port other than 22 is written [host]:port, as ssh writes it.
    const withPort = parseRegistry(
      registryWithWorkspace(
        `    moduleSources: [{ host: "git.example.com:2222", ssh: { privateKey: { env: K }, knownHosts: "${KNOWN_HOSTS.replace('git.example.com', '[git.example.com]:2222')}" } }]`,
      ),
    );
    expect(withPort.workspaces[0]?.moduleSources?.[0]?.host).toBe('git.example.com:2222');
  });

  it('one entry per host', () => {
    expectProblem(
      yaml(
        ...HEADER,
        'registries:',
        '  - { host: tfe.example.com, token: { env: A } }',
        '  - { host: tfe.example.com, token: { env: B } }',
        'workspaces: []',
      ),
      { path: 'registries[1].host', line: 9, message: 'host tfe.example.com is listed twice' },
    );
  });
});
