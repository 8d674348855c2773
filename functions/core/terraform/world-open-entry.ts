import { sameProtocol } from './companion-elements.js';
import { isPlainObject } from './json-values.js';

/**
 * Rule entries that let traffic in from anywhere, judged whole: a security group's inline `ingress`
 * block, an `aws_security_group_rule` or an `aws_vpc_security_group_ingress_rule` (`cidr_blocks`,
 * `cidr_ipv4` and their IPv6 sides holding 0.0.0.0/0 or ::/0; such a rule always allows) and a network ACL's `ingress` entry or an `aws_network_acl_rule`
 * (allowing, with `cidr_block` 0.0.0.0/0 or `ipv6_cidr_block` ::/0). An entry edited in place shows
 * only the members that changed (`ingress[0].from_port`, a rule resource's `cidr_block`), which say
 * neither where it admits traffic from nor whether it allows: attribute-diff.ts keeps this verdict
 * on those changes (CompactAttributeChange.opensEntryToTheWorld) instead. A default route to an
 * internet gateway is such an entry too: it makes the subnets of its table public.
 */

/**
 * The edit made the entry admit from anywhere what it did not before: it now allows traffic from
 * 0.0.0.0/0 or ::/0 and did not, or it did and now lets more through (all traffic, another protocol,
 * a lower from_port or a higher to_port). Narrowing, or leaving all traffic, is not an opening.
 */
export function opensEntryToTheWorld(before: unknown, after: unknown): boolean {
  if (!isPlainObject(after) || !isPlainObject(before) || !admitsFromAnywhere(after)) return false;
  return !admitsFromAnywhere(before) || widens(before, after);
}

/**
 * The entry allows inbound traffic from 0.0.0.0/0 or ::/0: a network ACL entry (inline, `action`, or
 * an `aws_network_acl_rule`, `rule_action`) only when it allows and is not an egress rule; a security
 * group block or `aws_security_group_rule` when it is not of type egress; a route (inline in a route
 * table, or an `aws_route`) when it sends every address to an internet gateway.
 */
export function admitsFromAnywhere(entry: Record<string, unknown>): boolean {
  // A route to an internet gateway for every address: what it serves is reachable from the internet.
  if (typeof entry.gateway_id === 'string')
    return (
      entry.gateway_id.startsWith('igw-') &&
      [
        entry.cidr_block,
        entry.ipv6_cidr_block,
        entry.destination_cidr_block,
        entry.destination_ipv6_cidr_block,
      ].some(isOpenCidr)
    );
  if (entry.egress === true || entry.type === 'egress') return false;
  const action = 'action' in entry ? entry.action : 'rule_action' in entry ? entry.rule_action : undefined;
  if (action !== undefined)
    return action === 'allow' && (isOpenCidr(entry.cidr_block) || isOpenCidr(entry.ipv6_cidr_block));
  // aws_vpc_security_group_ingress_rule names one source (cidr_ipv4, cidr_ipv6), the others lists.
  return (
    isOpenCidr(entry.cidr_ipv4) ||
    isOpenCidr(entry.cidr_ipv6) ||
    containsOpenCidr(entry.cidr_blocks) ||
    containsOpenCidr(entry.ipv6_cidr_blocks)
  );
}

/**
 * The entry lets more through than before: another protocol (all traffic `-1` included), a lower
 * from_port or a higher to_port. Leaving all traffic, or narrowing, is not.
 */
function widens(before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  // aws_vpc_security_group_ingress_rule calls it ip_protocol.
  const protocolBefore = before.protocol ?? before.ip_protocol;
  const protocolAfter = after.protocol ?? after.ip_protocol;
  if (sameProtocol(protocolBefore, '-1')) return false;
  if (protocolBefore !== protocolAfter && !sameProtocol(protocolBefore, protocolAfter)) return true;
  const lower = (from: unknown, to: unknown) =>
    typeof from === 'number' && typeof to === 'number' && to < from;
  return lower(before.from_port, after.from_port) || lower(after.to_port, before.to_port);
}

const OPEN_CIDRS: ReadonlySet<string> = new Set(['0.0.0.0/0', '::/0']);

/** 0.0.0.0/0 or ::/0: every address. */
export function isOpenCidr(value: unknown): boolean {
  return typeof value === 'string' && OPEN_CIDRS.has(value);
}

function containsOpenCidr(value: unknown): boolean {
  return Array.isArray(value) && value.some(isOpenCidr);
}
