import { describe, expect, it } from 'vitest';
import { parseRegistry, RegistryError } from '../../../../functions/core/registry/parse.js';
import { expectProblem, problemsOf, registryWithWorkspace } from './helpers.js';

/** Workspace variables: varFiles, vars and sensitiveVars (extra rows start at line 13). */
describe('registry: workspace variables', () => {
  it.each([
    ['../common/prod.tfvars', "must not contain '..'"],
    ['env/../../prod.tfvars', "must not contain '..'"],
    ['/etc/prod.tfvars', "not start with '/'"],
    ['C:\\\\vars\\\\prod.tfvars', 'not an absolute path'],
  ])('refuses var file %s with its file:line', (file, message) => {
    expectProblem(registryWithWorkspace(`    varFiles: ["${file}"]`), {
      path: 'workspaces[0].varFiles[0]',
      line: 13,
      message,
    });
  });

  it('keeps vars in -var form: strings as written, other types as JSON', () => {
    const registry = parseRegistry(
      registryWithWorkspace(
        '    vars: { region: eu-west-1, replicas: 3, on: true, zones: [a, b], tags: { team: x } }',
      ),
    );
    expect(registry.workspaces[0]?.vars).toEqual({
      region: 'eu-west-1',
      replicas: '3',
      on: 'true',
      zones: '["a","b"]',
      tags: '{"team":"x"}',
    });
  });

  it('refuses a var whose name looks secret, pointing at the key and naming sensitiveVars', () => {
    expectProblem(registryWithWorkspace('    vars: { db_password: hunter2hunter2 }'), {
      path: 'workspaces[0].vars.db_password',
      line: 13,
      message: 'list it under sensitiveVars',
    });
  });

  it('refuses a var whose value is a credential, without printing the value', () => {
    const key = 'AKIAIOSFODNN7EXAMPLE';
    const problems = problemsOf(registryWithWorkspace(`    vars: { note: "${key}" }`));
    const problem = problems.find((entry) => entry.path === 'workspaces[0].vars.note');
    expect(problem?.message).toContain('use sensitiveVars');
    expect(JSON.stringify(problems)).not.toContain(key);
  });

  it('refuses a name that is not a Terraform variable name', () => {
    expectProblem(registryWithWorkspace('    sensitiveVars: { "9lives": { env: X } }'), {
      path: 'workspaces[0].sensitiveVars["9lives"]',
      line: 13,
      message: 'is not a Terraform variable name',
    });
  });

  it('refuses one variable set two ways (Terraform would silently prefer one)', () => {
    const problems = problemsOf(
      registryWithWorkspace(
        '    vars: { region: eu-west-1 }',
        '    sensitiveVars: { region: { env: REGION }, db_pass: { env: DB } }',
        '    env: { TF_VAR_db_pass: x }',
      ),
    );
    expect(problems.map((problem) => [problem.path, problem.message])).toEqual(
      expect.arrayContaining([
        ['workspaces[0].sensitiveVars.region', expect.stringContaining('also set in vars')],
        ['workspaces[0].sensitiveVars.db_pass', expect.stringContaining('also set in env')],
      ]),
    );
  });

  it('takes sensitiveVars as references, exactly one of secretsManager or env', () => {
    const registry = parseRegistry(
      registryWithWorkspace(
        '    sensitiveVars: { db_password: { secretsManager: payments/db }, api_key: { env: API_KEY } }',
      ),
    );
    expect(registry.workspaces[0]?.sensitiveVars).toEqual({
      db_password: { secretsManager: 'payments/db' },
      api_key: { env: 'API_KEY' },
    });
    expect(() =>
      parseRegistry(registryWithWorkspace('    sensitiveVars: { db_password: { value: s3cr3t-s3cr3t } }')),
    ).toThrow(RegistryError);
    expectProblem(
      registryWithWorkspace('    sensitiveVars: { db_password: { secretsManager: a, env: B } }'),
      {
        path: 'workspaces[0].sensitiveVars.db_password',
        line: 13,
        message: "give either 'secretsManager' or 'env', not both",
      },
    );
  });
});
