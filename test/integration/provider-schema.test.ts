import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  defaultPluginCacheDir,
  terraformEnvironment,
} from '../../functions/adapters/terraform/cli-config.js';
import { runProcess } from '../../functions/adapters/terraform/run-process.js';
import { VOLATILE_ATTRIBUTES } from '../../functions/core/terraform/noise.js';
import { useTempDir } from '../helpers/integration.js';

/**
 * Tables of attribute names are only right while the provider agrees: a misspelt or renamed name
 * removes nothing and says nothing. The AWS provider's own schema (`terraform providers schema
 * -json`, the provider every scan installs) is the reference.
 */
const temp = useTempDir('driftwatch-provider-schema-');

interface AttributeSchema {
  computed?: boolean;
  optional?: boolean;
  required?: boolean;
}

async function awsResourceSchemas(): Promise<
  Record<string, { block: { attributes?: Record<string, AttributeSchema> } }>
> {
  const root = temp.path;
  writeFileSync(
    join(root, 'main.tf'),
    'terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws" }\n  }\n}\n',
  );
  const env = await terraformEnvironment({
    baseEnv: process.env,
    workDir: join(root, 'work'),
    pluginCacheDir: defaultPluginCacheDir(process.env),
    root,
  });
  const run = async (args: string[], stdoutFile?: string) => {
    const result = await runProcess('terraform', args, {
      cwd: root,
      env,
      timeoutMs: 5 * 60_000,
      ...(stdoutFile ? { stdoutFile } : {}),
    });
    if (result.exitCode !== 0) throw new Error(`terraform ${args.join(' ')} failed: ${result.stderr}`);
  };
  await run(['init', '-input=false', '-no-color']);
  const schemaFile = join(root, 'schema.json');
  await run(['providers', 'schema', '-json'], schemaFile);
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8'));
  return schema.provider_schemas['registry.terraform.io/hashicorp/aws'].resource_schemas;
}

describe('noise rules against the AWS provider schema', () => {
  it('every volatile attribute is one the provider alone sets (computed, not configurable)', async () => {
    const resources = await awsResourceSchemas();
    const wrong: string[] = [];
    for (const [type, attributes] of VOLATILE_ATTRIBUTES) {
      for (const name of attributes) {
        const attribute = resources[type]?.block.attributes?.[name];
        if (attribute?.computed !== true || attribute.optional === true || attribute.required === true)
          wrong.push(`${type}.${name}: ${attribute ? JSON.stringify(attribute) : 'no such attribute'}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(VOLATILE_ATTRIBUTES.size).toBeGreaterThan(10);
  });
});
