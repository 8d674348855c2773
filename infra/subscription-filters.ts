import * as sns from 'aws-cdk-lib/aws-sns';
import type { DigestAudience } from '../functions/core/notify/digest.js';
import type { Destination, Registry, Team } from '../functions/core/registry/model.js';

/**
 * The SNS filter policy of one owner's destination, over the message attributes NotifyOwners sets
 * (docs/notifications.md): `audience` picks which of a digest's two messages it gets (people: chat
 * and e-mail; machines: HTTPS and SQS get the finding list), `owner` (String) is the team, and a
 * destination that lists `environments` only takes digests about one of them (`environment` is a
 * String.Array: SNS matches when any element is listed).
 */
export function destinationFilterPolicy(team: Team, destination: Destination): Record<string, string[]> {
  return {
    audience: [destinationAudience(destination)],
    owner: [team.id],
    ...(destination.environments ? { environment: [...destination.environments] } : {}),
  };
}

/** Chat channels and mailboxes are read by people; HTTPS endpoints and SQS queues by programs. */
export function destinationAudience(destination: Destination): DigestAudience {
  switch (destination.type) {
    case 'chatbot-slack':
    case 'email':
      return 'people';
    case 'https':
    case 'sqs':
      return 'machines';
  }
}

/** The same policy as CDK subscription filters (an allowlist per attribute). */
export function subscriptionFilterPolicy(
  team: Team,
  destination: Destination,
): Record<string, sns.SubscriptionFilter> {
  return Object.fromEntries(
    Object.entries(destinationFilterPolicy(team, destination)).map(([name, values]) => [
      name,
      sns.SubscriptionFilter.stringFilter({ allowlist: values }),
    ]),
  );
}

export interface PlannedDestination {
  team: Team;
  destination: Destination;
  /** Stable within a registry: `<team>-<index>`, used as the construct id. */
  id: string;
}

/** Every destination of every team, in registry order. */
export function registryDestinations(registry: Registry): PlannedDestination[] {
  return registry.owners.teams.flatMap((team) =>
    team.destinations.map((destination, index) => ({ team, destination, id: `${team.id}-${index}` })),
  );
}

/** The fallback owner's destinations: where the stack's own alarms go. */
export function fallbackDestinations(registry: Registry): PlannedDestination[] {
  return registryDestinations(registry).filter(({ team }) => team.id === registry.owners.fallback);
}
