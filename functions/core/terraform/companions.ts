import { appendTo } from '../collections.js';
import { containsCredential } from '../redaction/secrets.js';
import { isCollectionAttribute } from './companion-elements.js';
import { childMask } from './json-values.js';
import type { CompactChange, IdentityAttribute, ManagedResource } from './plan-model.js';

/**
 * Companion resources: the AWS provider lets a separate resource manage part of a parent resource
 * (`aws_s3_bucket_versioning` manages `aws_s3_bucket.versioning`). The parent then shows those
 * attributes changing on every refresh after an apply — noise, not drift — but only while the
 * companion exists in the same state. Table of (parent attribute ← companion), linked by value.
 */
interface CompanionLink {
  parentType: string;
  /** Parent identity attributes tried in order for the link value. */
  parentKeys: readonly ('bucket' | 'id' | 'name' | 'arn' | 'key_id')[];
  companionType: string;
  /**
   * A list links the companion to each parent it names (listsParents: `roles` of
   * aws_iam_policy_attachment, the target groups in a listener's `default_action` or a rule's `action`):
   * companion-elements.ts companionParents reads them.
   */
  companionKey:
    | 'bucket'
    | 'role'
    | 'roles'
    | 'default_action'
    | 'action'
    | 'security_group_id'
    | 'route_table_id'
    | 'network_acl_id'
    | 'queue_url'
    | 'arn'
    | 'key_id';
  attributes: readonly string[] | ((companion: ManagedResource) => readonly string[]);
}

const S3_BUCKET_KEYS = ['bucket', 'id'] as const;

function s3(companionType: string, ...attributes: string[]): CompanionLink {
  return {
    parentType: 'aws_s3_bucket',
    parentKeys: S3_BUCKET_KEYS,
    companionType,
    companionKey: 'bucket',
    attributes,
  };
}

/** `aws_security_group_rule` says which side it manages in its `type`; unknown type mutes both. */
function securityGroupRuleSides(companion: ManagedResource): readonly string[] {
  const side = companion.values.type;
  return side === 'ingress' || side === 'egress' ? [side] : ['ingress', 'egress'];
}

/**
 * An SQS queue's access, redrive and redrive-allow policies, each its own resource naming the queue by
 * URL (the queue's id). The queue reads every one of them back into its own attribute.
 */
function sqs(companionType: string, attribute: string): CompanionLink {
  return {
    parentType: 'aws_sqs_queue',
    // A queue's id is its URL.
    parentKeys: ['id'],
    companionType,
    companionKey: 'queue_url',
    attributes: [attribute],
  };
}

/**
 * A target group lists the load balancers whose listeners or listener rules forward to it
 * (`load_balancer_arns`, computed). It is created before the listener that forwards to it, so the
 * first refresh after the apply shows the listener's load balancer added; each listener and rule
 * declares its own load balancer for each target group it forwards to (`aws_alb_*` are the same types).
 */
const LOAD_BALANCER_LINKS: readonly CompanionLink[] = ['aws_lb_target_group', 'aws_alb_target_group'].flatMap(
  (parentType) =>
    ['aws_lb_listener', 'aws_alb_listener', 'aws_lb_listener_rule', 'aws_alb_listener_rule'].map(
      (companionType): CompanionLink => ({
        parentType,
        // A target group's id is its ARN.
        parentKeys: ['id'],
        companionType,
        companionKey: companionType.endsWith('_rule') ? 'action' : 'default_action',
        attributes: ['load_balancer_arns'],
      }),
    ),
);

/** Companion keys that hold a list of parents (companionParents), not one parent's value. */
type ListedParentsKey = 'roles' | 'default_action' | 'action';

function listsParents(key: CompanionLink['companionKey']): key is ListedParentsKey {
  return key === 'roles' || key === 'default_action' || key === 'action';
}

export const COMPANION_LINKS: readonly CompanionLink[] = [
  s3('aws_s3_bucket_versioning', 'versioning'),
  s3('aws_s3_bucket_server_side_encryption_configuration', 'server_side_encryption_configuration'),
  s3('aws_s3_bucket_lifecycle_configuration', 'lifecycle_rule'),
  s3('aws_s3_bucket_logging', 'logging'),
  s3('aws_s3_bucket_policy', 'policy'),
  s3('aws_s3_bucket_acl', 'acl', 'grant'),
  s3('aws_s3_bucket_cors_configuration', 'cors_rule'),
  s3('aws_s3_bucket_website_configuration', 'website', 'website_domain', 'website_endpoint'),
  s3('aws_s3_bucket_replication_configuration', 'replication_configuration'),
  s3('aws_s3_bucket_object_lock_configuration', 'object_lock_configuration'),
  s3('aws_s3_bucket_accelerate_configuration', 'acceleration_status'),
  s3('aws_s3_bucket_request_payment_configuration', 'request_payer'),
  sqs('aws_sqs_queue_policy', 'policy'),
  sqs('aws_sqs_queue_redrive_policy', 'redrive_policy'),
  sqs('aws_sqs_queue_redrive_allow_policy', 'redrive_allow_policy'),
  {
    parentType: 'aws_sns_topic',
    // A topic's id is its ARN.
    parentKeys: ['id'],
    companionType: 'aws_sns_topic_policy',
    companionKey: 'arn',
    attributes: ['policy'],
  },
  {
    // key_id takes the key's id or ARN.
    parentType: 'aws_kms_key',
    parentKeys: ['key_id', 'arn', 'id'],
    companionType: 'aws_kms_key_policy',
    companionKey: 'key_id',
    attributes: ['policy'],
  },
  {
    parentType: 'aws_iam_role',
    parentKeys: ['name', 'id'],
    companionType: 'aws_iam_role_policy',
    companionKey: 'role',
    attributes: ['inline_policy'],
  },
  {
    parentType: 'aws_iam_role',
    parentKeys: ['name', 'id'],
    companionType: 'aws_iam_role_policy_attachment',
    companionKey: 'role',
    attributes: ['managed_policy_arns'],
  },
  {
    parentType: 'aws_iam_role',
    parentKeys: ['name', 'id'],
    companionType: 'aws_iam_policy_attachment',
    companionKey: 'roles',
    attributes: ['managed_policy_arns'],
  },
  {
    parentType: 'aws_security_group',
    parentKeys: ['id'],
    companionType: 'aws_security_group_rule',
    companionKey: 'security_group_id',
    attributes: securityGroupRuleSides,
  },
  {
    parentType: 'aws_security_group',
    parentKeys: ['id'],
    companionType: 'aws_vpc_security_group_ingress_rule',
    companionKey: 'security_group_id',
    attributes: ['ingress'],
  },
  {
    parentType: 'aws_security_group',
    parentKeys: ['id'],
    companionType: 'aws_vpc_security_group_egress_rule',
    companionKey: 'security_group_id',
    attributes: ['egress'],
  },
  {
    parentType: 'aws_route_table',
    parentKeys: ['id'],
    companionType: 'aws_route',
    companionKey: 'route_table_id',
    attributes: ['route'],
  },
  {
    parentType: 'aws_network_acl',
    parentKeys: ['id'],
    companionType: 'aws_network_acl_rule',
    companionKey: 'network_acl_id',
    attributes: ['ingress', 'egress'],
  },
  ...LOAD_BALANCER_LINKS,
];

/**
 * Identity attributes that only links need (an ARN or key id kept for every resource of a large plan
 * would be dead weight): kept for the parent and companion types whose links name them.
 */
const LINK_ONLY_ATTRIBUTES: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const types = new Map<string, Set<string>>();
  const add = (attribute: string, type: string) => {
    const set = types.get(attribute) ?? new Set<string>();
    set.add(type);
    types.set(attribute, set);
  };
  for (const name of ['arn', 'key_id', 'queue_url']) types.set(name, new Set());
  for (const link of COMPANION_LINKS) {
    for (const key of link.parentKeys) if (types.has(key)) add(key, link.parentType);
    if (types.has(link.companionKey)) add(link.companionKey, link.companionType);
  }
  return types;
})();

/** Whether the identity of a resource of `type` keeps `attribute` (every type keeps the general ones). */
export function keepsIdentityAttribute(type: string, attribute: string): boolean {
  return LINK_ONLY_ATTRIBUTES.get(attribute)?.has(type) ?? true;
}

/**
 * An identity attribute's value as a compacted resource keeps it: a non-empty string its type keeps,
 * never one shaped like a credential, hashed when Terraform marks it sensitive. The cheap type test
 * first: an ARN kept only for companion links is never scanned for the thousands of types that drop it.
 */
export function keptIdentityValue(
  type: string,
  key: IdentityAttribute,
  value: unknown,
  mask: unknown,
  hash: (value: string) => string,
): string | undefined {
  if (typeof value !== 'string' || value === '' || !keepsIdentityAttribute(type, key)) return undefined;
  if (containsCredential(value)) return undefined;
  // A mask `true` (`sensitive_values: true`) covers every attribute below it.
  return childMask(mask, key) === true ? hash(value) : value;
}

export interface CompanionIndex {
  /**
   * The top-level attributes of `change` that a companion resource in this plan manages: whole
   * (undefined), or element by element with the keys of the elements companions declare (a
   * security group's `ingress`, a role's `managed_policy_arns`: companion-elements.ts).
   */
  managedAttributes(
    change: Pick<CompactChange, 'address' | 'type' | 'identity'>,
  ): ReadonlyMap<string, ReadonlySet<string> | undefined>;
}

const NONE: ReadonlyMap<string, ReadonlySet<string> | undefined> = new Map();

export function createCompanionIndex(resources: readonly ManagedResource[]): CompanionIndex {
  const linksByCompanion = new Map<string, CompanionLink[]>();
  const parentKeysByType = new Map<string, CompanionLink['parentKeys']>();
  for (const link of COMPANION_LINKS) {
    appendTo(linksByCompanion, link.companionType, link);
    parentKeysByType.set(link.parentType, link.parentKeys);
  }
  // parent type → link value → attributes managed by companions (→ keys of the elements they declare)
  const managed = new Map<string, Map<string, Map<string, Set<string> | undefined>>>();
  for (const resource of resources) {
    const links = linksByCompanion.get(resource.type);
    if (links === undefined) continue;
    for (const link of links) {
      const linked = listsParents(link.companionKey)
        ? (resource.linkedParents ?? [])
        : [resource.values[link.companionKey]];
      const attributes = typeof link.attributes === 'function' ? link.attributes(resource) : link.attributes;
      for (const value of linked) {
        if (value === undefined) continue;
        const byValue =
          managed.get(link.parentType) ?? new Map<string, Map<string, Set<string> | undefined>>();
        managed.set(link.parentType, byValue);
        const byAttribute = byValue.get(value) ?? new Map<string, Set<string> | undefined>();
        byValue.set(value, byAttribute);
        for (const attribute of attributes) {
          if (!isCollectionAttribute(link.parentType, attribute)) {
            byAttribute.set(attribute, undefined);
            continue;
          }
          const keys = byAttribute.get(attribute) ?? new Set<string>();
          for (const key of resource.companionKeys ?? []) keys.add(key);
          byAttribute.set(attribute, keys);
        }
      }
    }
  }

  let parentValues: Map<string, ManagedResource['values']> | undefined;
  const stateValuesOf = (address: string) => {
    parentValues ??= new Map(
      resources
        .filter((resource) => parentKeysByType.has(resource.type))
        .map((resource) => [resource.address, resource.values]),
    );
    return parentValues.get(address);
  };

  return {
    managedAttributes(change) {
      const byValue = managed.get(change.type);
      if (byValue === undefined) return NONE;
      const parentKeys = parentKeysByType.get(change.type) ?? [];
      // The change carries the parent's identity; prior_state is the fallback for trimmed entries.
      const known = change.identity ?? stateValuesOf(change.address);
      let found: ReadonlyMap<string, ReadonlySet<string> | undefined> = NONE;
      for (const key of parentKeys) {
        const value = known?.[key];
        const attributes = value === undefined ? undefined : byValue.get(value);
        if (attributes === undefined || attributes === found) continue;
        found = found.size === 0 ? attributes : mergeManaged(found, attributes);
      }
      return found;
    },
  };
}

/** Two links' attributes for one parent (its bucket and its id name it): keys together, whole wins. */
function mergeManaged(
  a: ReadonlyMap<string, ReadonlySet<string> | undefined>,
  b: ReadonlyMap<string, ReadonlySet<string> | undefined>,
): Map<string, ReadonlySet<string> | undefined> {
  const merged = new Map(a);
  for (const [attribute, keys] of b) {
    const other = merged.get(attribute);
    if (!merged.has(attribute)) merged.set(attribute, keys);
    else if (other !== undefined && keys !== undefined) merged.set(attribute, new Set([...other, ...keys]));
    else merged.set(attribute, undefined);
  }
  return merged;
}
