import { limitText, stripForTerminal } from '../text/sanitize.js';
import { type DigestContent, type DigestItem, largestFitting, SECTION_HEADINGS } from './digest-content.js';

/**
 * The digest for e-mail: a subject and a plain-text body a person reads in any mail client. No
 * chat markup (no `*bold*`, no emoji codes, no `&lt;`) and no JSON; data is plain text too: every
 * piece loses terminal escapes, control characters (shown as U+FFFD) and bidi controls (a
 * reversed address or command could read as another), and line breaks inside data become spaces,
 * so data cannot start a line that looks like one of ours.
 */
export interface DigestEmail {
  /** SNS: ASCII, at most 100 characters, no line breaks. */
  subject: string;
  text: string;
}

/** Room for the rest of the SNS message (the chat payload rides along in the same message). */
export const EMAIL_MAX_BYTES = 96 * 1024;
const PIECE = 300;

/** One piece of data as plain text on one line, at most `max` long. */
export function plainText(text: string, max = PIECE): string {
  return limitText(stripForTerminal(text), max);
}

/**
 * An SNS subject: printable ASCII only (SNS rejects others), one line, under 100 characters.
 * Anything else becomes `?`.
 */
export function emailSubject(text: string): string {
  return limitText(stripForTerminal(text).replace(/[^\u0020-\u007e]/g, '?'), 99, '...');
}

export function digestEmail(content: DigestContent, remindEveryMs: number): DigestEmail {
  const counts = countsText(content);
  const subject = emailSubject(`driftwatch for ${content.owner}: ${counts}`);
  const build = (listed: readonly DigestItem[]) => {
    const notListed = content.counts.notListed + content.items.length - listed.length;
    const lines = [
      `driftwatch digest for ${plainText(content.owner)}, scan ${plainText(content.scanId)}`,
      `${counts}. Most severe: ${content.severity}.`,
      ...(content.reportUrl ? ['', `Report: ${plainText(content.reportUrl, 4000)}`] : []),
    ];
    let section: DigestItem['section'] | undefined;
    for (const item of listed) {
      if (item.section !== section) {
        section = item.section;
        const total = content.counts[section === 'reminder' ? 'reminders' : section];
        const heading =
          section === 'reminder'
            ? `${SECTION_HEADINGS.reminder.toUpperCase()} (reminder every ${Math.round(remindEveryMs / 86_400_000)} days)`
            : SECTION_HEADINGS[section].toUpperCase();
        lines.push('', `${heading}: ${total}`);
      }
      lines.push('', ...itemLines(item));
    }
    if (notListed > 0)
      lines.push(
        '',
        `${notListed} more not listed here. ${content.moreCommandExact ? 'All of them, with the ones above' : 'Every open finding of the owner, these among them'}:`,
        `    ${plainText(content.moreCommand, 1000)}`,
      );
    if (content.resolved.length > 0) {
      lines.push('', `RESOLVED: ${content.resolved.length}`);
      for (const entry of content.resolved.slice(0, 20))
        lines.push(`  - ${plainText(entry.resource)} in ${plainText(entry.workspace)} (${entry.shortId})`);
      if (content.resolved.length > 20) lines.push(`  and ${content.resolved.length - 20} more`);
    }
    lines.push(
      '',
      '--',
      "driftwatch only reads: every fix above goes through review and the team's pipeline.",
      `Digest ${plainText(content.digestId)}`,
    );
    return `${lines.join('\n')}\n`;
  };
  const fits = (count: number) => Buffer.byteLength(build(content.items.slice(0, count))) <= EMAIL_MAX_BYTES;
  return { subject, text: build(content.items.slice(0, largestFitting(content.items.length, fits))) };
}

/** The longest command an e-mail lists; a longer one is not cut (cut short, it may still run). */
const COMMAND_MAX = 1000;

/**
 * Commands as lines to copy, each only when the e-mail shows it as it is: within COMMAND_MAX and
 * with nothing plainText would replace. The others are named, not listed (findings show has them).
 */
function commandLines(commands: readonly string[]): string[] {
  const whole = commands.filter((command) => plainText(command, COMMAND_MAX) === command);
  return [
    ...whole.map((command) => `    ${command}`),
    ...(whole.length < commands.length
      ? ['  (A command too long or unusual to show here: driftwatch findings show prints it whole.)']
      : []),
  ];
}

function itemLines(item: DigestItem): string[] {
  const where = item.environment ? `${item.workspace} (${item.environment})` : item.workspace;
  const open = item.openDays > 0 ? `, open ${item.openDays} days` : '';
  return [
    `[${item.severity.toUpperCase()}] ${plainText(item.resource)} in ${plainText(where)}`,
    `  What: ${plainText(item.whatInWords, 600)}`,
    `  Rule: ${plainText(item.ruleId)}${open}. Finding ${item.shortId}`,
    // Our remediation texts quote commands in backticks, which is markup here.
    `  Advice: ${plainText(item.advice.text, 1200).replace(/`/g, '')}`,
    ...commandLines(item.advice.commands),
    '  Go further:',
    ...commandLines(item.commands),
  ];
}

function countsText(content: DigestContent): string {
  const { counts } = content;
  const parts = [
    counts.new && `${counts.new} new`,
    counts.changed && `${counts.changed} changed`,
    counts.regressed && `${counts.regressed} regressed`,
    counts.reminders && `${counts.reminders} still open`,
    counts.resolved && `${counts.resolved} resolved`,
  ].filter(Boolean);
  return parts.join(', ');
}
