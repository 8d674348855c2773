import { readFileSync } from 'node:fs';
import type { Node } from 'constructs';
import { parse as parseYaml } from 'yaml';
import { parseQueryAccess, type QueryAccess } from '../functions/core/query/query-access.js';
import type { Registry } from '../functions/core/registry/model.js';
import { ConfigError } from './config.js';

/** The environment variable QueryFindings reads its access mapping from. */
export const QUERY_ACCESS_VARIABLE = 'DRIFTWATCH_QUERY_ACCESS';
/** Lambda allows 4 KB of environment for all variables together; leave room for the others. */
const MAX_SERIALISED_BYTES = 3000;

/**
 * Who may read whose findings through the API, from `-c queryAccess=…`: an object in cdk.json's
 * context, JSON text, or the path of a JSON or YAML file, shaped
 * `{ admins: [arn patterns], owners: { <team id>: [arn patterns] } }`. The registry's fallback owner
 * is added (owner-less findings are its). Without the setting the API is closed: it answers every
 * caller 403 with the caller's ARN and this setting's name, and synth warns (`configured: false`).
 */
export function readQueryAccess(
  node: Node,
  registry: Registry,
): { access: QueryAccess; configured: boolean } {
  const raw: unknown = node.tryGetContext('queryAccess');
  const fallbackOwner = registry.owners.fallback;
  if (raw === undefined || raw === '')
    return { access: { admins: [], owners: {}, fallbackOwner }, configured: false };
  const value = typeof raw === 'string' ? fromText(raw) : raw;
  let access: QueryAccess;
  try {
    access = parseQueryAccess(JSON.stringify({ ...(value as object), fallbackOwner }));
  } catch (error) {
    throw new ConfigError(`-c queryAccess: ${(error as Error).message}`);
  }
  const teams = registry.owners.teams.map((team) => team.id);
  const unknown = Object.keys(access.owners).filter((owner) => !teams.includes(owner));
  if (unknown.length > 0)
    throw new ConfigError(
      `-c queryAccess: owners ${unknown.join(', ')} are not teams of the registry (teams: ${teams.join(', ')})`,
    );
  const bytes = Buffer.byteLength(JSON.stringify(access));
  if (bytes > MAX_SERIALISED_BYTES)
    throw new ConfigError(
      `-c queryAccess is ${bytes} bytes, more than the ${MAX_SERIALISED_BYTES} the function's environment can hold: use wider ARN patterns (*)`,
    );
  return { access, configured: true };
}

function fromText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch (error) {
      throw new ConfigError(`-c queryAccess is not valid JSON: ${(error as Error).message}`);
    }
  }
  let content: string;
  try {
    content = readFileSync(trimmed, 'utf8');
  } catch {
    throw new ConfigError(
      `-c queryAccess: no file ${trimmed} (give JSON, or the path of a JSON or YAML file)`,
    );
  }
  try {
    return parseYaml(content) as unknown;
  } catch (error) {
    throw new ConfigError(`-c queryAccess: ${trimmed} is not JSON or YAML: ${(error as Error).message}`);
  }
}
