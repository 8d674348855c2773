import { type BucketRule, hcl, shellWord } from '../rule.js';

const SHOWN_KEYS = 10;

export const dynamodbLockingDeprecatedRule: BucketRule = {
  id: 'backend.dynamodb-locking-deprecated',
  target: 'bucket',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'low',
  checks:
    'no DynamoDB lock table (`dynamodb_table`) is configured for the bucket; digest items show who still uses it',
  explanation:
    'Terraform 1.11 deprecates DynamoDB state locking in favour of S3 native lock files (use_lockfile = true, Terraform >= 1.10); the table, its digest items and its IAM grants can go once every workspace has moved.',
  iamActions: ['dynamodb:Scan'],
  reads: [],
  evaluate({ bucket, lockTables }) {
    // A table that does not exist locks nothing: its read failure is reported (scan-failed), and
    // "uses DynamoDB lock table X" would be false (a typo in --lock-table or the registry).
    const existing = lockTables.filter(
      ({ items }) => items.ok || items.failure.code !== 'ResourceNotFoundException',
    );
    return existing.map(({ table, configuredBy, items }) => {
      const read = items.ok ? items.value : undefined;
      const counts = items.ok
        ? {
            digestItems: items.value.digestStateKeys.length,
            lockItems: items.value.lockedStateKeys.length,
            statesWithDigest: items.value.digestStateKeys.slice(0, SHOWN_KEYS),
          }
        : { tableUnreadable: items.failure.code };
      return {
        resource: { bucket, lockTable: table },
        title: `State bucket ${bucket} uses DynamoDB lock table ${table}`,
        detail: `DynamoDB table ${table} locks states of ${bucket} (configured by ${configuredBy.join(', ')}${
          read ? `; ${read.digestStateKeys.length} state(s) have digest items` : ''
        }).`,
        evidence: { lockTable: table, configuredBy, ...counts },
        remediation: {
          summary: `Move the workspaces of ${bucket} from DynamoDB locking to S3 lock files, then retire ${table}.`,
          steps: [
            'Run Terraform >= 1.10 in every workspace of the bucket (pipelines and laptops).',
            `Terraform: add use_lockfile while keeping dynamodb_table (both locks are taken during the move), run \`terraform init -reconfigure\`:\n${[
              'terraform {',
              '  backend "s3" {',
              '    use_lockfile   = true',
              `    dynamodb_table = ${hcl(table)} # remove once every workspace runs with use_lockfile`,
              '  }',
              '}',
            ].join('\n')}`,
            `When no pipeline passes dynamodb_table any more, remove it, run \`terraform init -reconfigure\`, and check who still writes digests with the AWS CLI:\naws dynamodb scan --table-name ${shellWord(table)} --projection-expression LockID --filter-expression 'begins_with(LockID, :bucket)' --expression-attribute-values '{":bucket":{"S":"${bucket}/"}}'`,
            'driftwatch only reads: the table is deleted by whoever manages it, after review.',
          ],
        },
      };
    });
  },
};
