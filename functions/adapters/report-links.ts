import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

/** A link to one report, and until when it works at most. */
export interface ReportLink {
  url: string;
  /** The URL's own expiry (none for a local file); the signing credentials can end it earlier. */
  expiresAt?: Date;
}

export type ReportLinker = (key: string) => Promise<ReportLink | undefined>;

/** What a presigned S3 URL can last (SigV4): seven days. */
export const MAX_LINK_HOURS = 7 * 24;
export const DEFAULT_LINK_HOURS = 12;

/** REPORT_LINK_HOURS (the stack's `-c reportLinkHours`), or the default; a bad value fails the cold start. */
export function reportLinkHours(text: string | undefined): number {
  if (text === undefined || text === '') return DEFAULT_LINK_HOURS;
  const hours = Number(text);
  if (!(hours > 0 && hours <= MAX_LINK_HOURS))
    throw new RangeError(`REPORT_LINK_HOURS takes hours between 1 and ${MAX_LINK_HOURS}, not ${text}`);
  return hours;
}

export interface ReportLinkOptions {
  bucket: string;
  hours?: number;
  now?: () => Date;
}

/**
 * Links for a chat channel to its owner's report: a presigned GET of that one object. A person in
 * the channel opens it in any browser, whereas the findings API needs SigV4 (a click cannot sign)
 * and a public link would make the findings public. The URL is a bearer token for one report for
 * `hours`: whoever the message is forwarded to can open it until then. It is signed with the
 * function's temporary credentials, so it stops working when those expire if that is sooner (AWS
 * does not promise Lambda credentials for longer); the digest also names the command that renders
 * the same report at any time. A report that is not there (WriteReports failed) gets no link.
 */
export function createReportLinker(s3: S3Client, options: ReportLinkOptions): ReportLinker {
  const hours = options.hours ?? DEFAULT_LINK_HOURS;
  if (!(hours > 0 && hours <= MAX_LINK_HOURS))
    throw new RangeError(`report links last between 1 second and ${MAX_LINK_HOURS} hours, not ${hours}`);
  const now = options.now ?? (() => new Date());
  return async (key) => {
    const exists = await s3.send(new HeadObjectCommand({ Bucket: options.bucket, Key: key })).then(
      () => true,
      (error: { name?: string; $metadata?: { httpStatusCode?: number } }) => {
        // Without s3:ListBucket a missing object answers 403, not 404: both mean "no report to link".
        const status = error.$metadata?.httpStatusCode;
        if (error.name === 'NotFound' || status === 404 || status === 403) return false;
        throw error;
      },
    );
    if (!exists) return undefined;
    const expiresIn = Math.round(hours * 3600);
    const url = await getSignedUrl(
      s3,
      new GetObjectCommand({
        Bucket: options.bucket,
        Key: key,
        // Shown in the browser, whatever metadata an older object was written with.
        ResponseContentType: 'text/html; charset=utf-8',
        ResponseContentDisposition: 'inline',
      }),
      { expiresIn },
    );
    return { url, expiresAt: new Date(now().getTime() + expiresIn * 1000) };
  };
}

/**
 * Links to the reports of the store at `location` (an ObjectStore's location): presigned GETs for
 * `s3://bucket/`, file URLs for a local directory (a local scan's digest, the demo).
 */
export function reportLinkerAt(
  location: string,
  s3: () => S3Client,
  options: Omit<ReportLinkOptions, 'bucket'> = {},
): ReportLinker {
  const bucket = /^s3:\/\/([^/]+)\/?$/.exec(location)?.[1];
  if (bucket) return createReportLinker(s3(), { ...options, bucket });
  return async (key) => {
    const file = join(location, key);
    return existsSync(file) ? { url: pathToFileURL(file).href } : undefined;
  };
}
