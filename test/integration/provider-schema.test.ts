import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  defaultPluginCacheDir,
  terraformEnvironment,
} from '../../functions/adapters/terraform/cli-config.js';
import { runProcess } from '../../functions/adapters/terraform/run-process.js';
import { COMPANION_LINKS } from '../../functions/core/terraform/companions.js';
import { VOLATILE_ATTRIBUTES } from '../../functions/core/terraform/noise.js';
import { secretAttributesOf } from '../../functions/core/terraform/sensitivity.js';
import {
  AMI_TYPES,
  API_AUTHORIZATION_ATTRIBUTES,
  API_DOMAIN_TYPES,
  DELETION_GUARD_FLAGS,
  ENCRYPTION_STATUS_ATTRIBUTES,
  ENCRYPTION_TYPES,
  KMS_KEY_GUARDS,
  KMS_KEY_TYPES,
  LISTENER_TYPES,
  NETWORK_ACL_TYPES,
  PASSWORD_MINIMUMS,
  PASSWORD_REQUIREMENTS,
  PUBLIC_ACCESS_BLOCK_TYPES,
  ROUTE_TABLE_TYPES,
  TLS_POLICY_ATTRIBUTES,
} from '../../functions/core/terraform/severity.js';
import { useTempDir } from '../helpers/integration.js';

/**
 * Tables of attribute names are only right while the provider agrees: a misspelt or renamed name
 * removes nothing and says nothing. The AWS provider's own schema (`terraform providers schema
 * -json`, the provider every scan installs) is the reference.
 */
const temp = useTempDir('driftwatch-provider-schema-');

interface AttributeSchema {
  type?: unknown;
  computed?: boolean;
  optional?: boolean;
  required?: boolean;
}

interface ResourceSchema {
  block: { attributes?: Record<string, AttributeSchema>; block_types?: Record<string, unknown> };
}

async function awsResourceSchemas(): Promise<Record<string, ResourceSchema>> {
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
  // One `providers schema -json` for the file (~13 MB): the provider is started once.
  let resources: Record<string, ResourceSchema>;
  beforeAll(async () => {
    resources = await awsResourceSchemas();
  });

  it('every volatile attribute is one the provider alone sets (computed, not configurable)', async () => {
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

  it('every companion link names real types, identity attributes and parent attributes or blocks', () => {
    const wrong: string[] = [];
    const has = (type: string, name: string) => {
      const block = resources[type]?.block;
      return block?.attributes?.[name] !== undefined || block?.block_types?.[name] !== undefined;
    };
    for (const link of COMPANION_LINKS) {
      if (!resources[link.parentType]) wrong.push(`no resource type ${link.parentType}`);
      if (!resources[link.companionType]) wrong.push(`no resource type ${link.companionType}`);
      if (!has(link.companionType, link.companionKey))
        wrong.push(`${link.companionType}.${link.companionKey}`);
      for (const key of link.parentKeys)
        if (!has(link.parentType, key)) wrong.push(`${link.parentType}.${key}`);
      // A function decides per companion (aws_security_group_rule's side): its answers are checked by the unit tests.
      const attributes = typeof link.attributes === 'function' ? [] : link.attributes;
      for (const name of attributes)
        if (!has(link.parentType, name)) wrong.push(`${link.parentType}.${name}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the attributes hashed by resource type (SecureString values, secret versions) are named as the provider names them', () => {
    const secureString = { type: 'SecureString' };
    const wrong: string[] = [];
    for (const type of ['aws_ssm_parameter', 'aws_secretsmanager_secret_version']) {
      const names = [...(secretAttributesOf(type, secureString, secureString) ?? [])];
      if (names.length === 0) wrong.push(`${type}: no secret attributes`);
      for (const name of names)
        if (resources[type]?.block.attributes?.[name] === undefined) wrong.push(`${type}.${name}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the severity rules name real resource types, and deletion guards that are booleans of some type', () => {
    const wrong: string[] = [];
    for (const type of [...AMI_TYPES, ...PUBLIC_ACCESS_BLOCK_TYPES, ...ENCRYPTION_TYPES])
      if (!resources[type]) wrong.push(`no resource type ${type}`);
    for (const flag of DELETION_GUARD_FLAGS) {
      const holders = Object.values(resources).filter(
        (resource) => resource.block.attributes?.[flag]?.type === 'bool',
      );
      if (holders.length === 0) wrong.push(`no resource type has a boolean ${flag}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the attributes the severity rules read by type are the provider’s, of the type they expect', () => {
    const wrong: string[] = [];
    const expectType = (type: string, name: string, expected: string) => {
      const block = resources[type]?.block;
      const found = block?.attributes?.[name]?.type ?? (block?.block_types?.[name] ? 'block' : undefined);
      if (JSON.stringify(found) !== JSON.stringify(expected))
        wrong.push(`${type}.${name}: ${JSON.stringify(found)}`);
    };
    for (const type of KMS_KEY_TYPES) {
      const guards = [...KMS_KEY_GUARDS].filter(
        (name) => resources[type]?.block.attributes?.[name]?.type === 'bool',
      );
      if (guards.length === 0) wrong.push(`${type}: no boolean of ${[...KMS_KEY_GUARDS].join(', ')}`);
    }
    for (const name of PASSWORD_REQUIREMENTS) expectType('aws_iam_account_password_policy', name, 'bool');
    for (const name of PASSWORD_MINIMUMS) expectType('aws_iam_account_password_policy', name, 'number');
    for (const type of LISTENER_TYPES) expectType(type, 'protocol', 'string');
    for (const [type, name] of API_AUTHORIZATION_ATTRIBUTES) expectType(type, name, 'string');
    for (const type of NETWORK_ACL_TYPES) {
      const ingress =
        resources[type]?.block.attributes?.ingress ?? resources[type]?.block.block_types?.ingress;
      if (ingress === undefined) wrong.push(`${type}.ingress`);
    }
    for (const type of ['aws_subnet', 'aws_default_subnet'])
      expectType(type, 'map_public_ip_on_launch', 'bool');
    expectType('aws_ecr_repository', 'image_tag_mutability', 'string');
    expectType('aws_ecr_repository', 'image_scanning_configuration', 'block');
    for (const type of ['aws_instance', 'aws_launch_template']) expectType(type, 'metadata_options', 'block');
    expectType('aws_ec2_instance_metadata_defaults', 'http_tokens', 'string');
    expectType('aws_eks_cluster', 'vpc_config', 'block');
    // Entries edited in place are judged whole (world-open-entry.ts): the members it reads.
    expectType('aws_network_acl_rule', 'rule_action', 'string');
    expectType('aws_network_acl_rule', 'egress', 'bool');
    expectType('aws_security_group_rule', 'type', 'string');
    expectType('aws_route', 'gateway_id', 'string');
    expectType('aws_route', 'destination_cidr_block', 'string');
    for (const type of ROUTE_TABLE_TYPES) {
      const route = resources[type]?.block.attributes?.route ?? resources[type]?.block.block_types?.route;
      if (route === undefined) wrong.push(`${type}.route`);
    }
    expectType('aws_kms_alias', 'target_key_id', 'string');
    // TLS policies, at any depth (OpenSearch's domain_endpoint_options, CloudFront's viewer_certificate).
    const holdsAnywhere = (block: ResourceSchema['block'] | undefined, name: string): boolean =>
      block !== undefined &&
      (block.attributes?.[name] !== undefined ||
        Object.values(block.block_types ?? {}).some((nested) =>
          holdsAnywhere((nested as { block?: ResourceSchema['block'] }).block, name),
        ));
    for (const name of TLS_POLICY_ATTRIBUTES)
      if (!Object.values(resources).some((resource) => holdsAnywhere(resource.block, name)))
        wrong.push(`no resource type has ${name}`);
    for (const type of API_DOMAIN_TYPES)
      if (!holdsAnywhere(resources[type]?.block, 'security_policy')) wrong.push(`${type}.security_policy`);
    // Statuses AWS reports: computed only, never set in a configuration.
    for (const name of ENCRYPTION_STATUS_ATTRIBUTES) {
      const holders = Object.values(resources).filter((resource) => resource.block.attributes?.[name]);
      if (holders.length === 0) wrong.push(`no resource type has ${name}`);
      for (const resource of holders) {
        const attribute = resource.block.attributes?.[name];
        if (attribute?.optional === true || attribute?.required === true)
          wrong.push(`${name} is configurable`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
