// Which file types attachments may be, their limits, and whether a file's first bytes are what its type says.

/** Types an attachment may have (PDF, PNG, JPEG, WebP, HEIC, plain text, CSV). */
export const ATTACHMENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'image/heic', 'text/plain', 'text/csv'] as const;
/** One allowed attachment type. */
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];
/** Types relationship evidence may have: PDF or an image (checked by content like any attachment). */
export const EVIDENCE_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'image/heic'] as const satisfies readonly AttachmentType[];
/** Largest attachment: 25 MiB. */
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
/** Files per prepare. */
export const MAX_FILES_PER_PREPARE = 10;
/** Longest file name, in characters. */
export const MAX_FILENAME_LENGTH = 200;
/** How long an upload URL (and the pending attachment) lives: 15 minutes. */
export const UPLOAD_URL_SECONDS = 15 * 60;
/** How long a download URL lives: 5 minutes. */
export const DOWNLOAD_URL_SECONDS = 5 * 60;
/** How many leading bytes the content check reads. */
export const SNIFF_BYTES = 4096;

const HEIC_BRANDS = ['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1'];

function startsWith(bytes: Buffer, prefix: number[], at = 0): boolean {
  return bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b);
}

function ascii(bytes: Buffer, from: number, to: number): string {
  return bytes.subarray(from, to).toString('latin1');
}

/** Text: UTF-8 (a character cut at the end of the sample allowed) without NUL or other binary control bytes. */
function looksLikeText(bytes: Buffer, whole: boolean): boolean {
  if (bytes.some((b) => b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c)) return false;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let cut = 0; cut <= (whole ? 0 : 3); cut++) {
    try {
      decoder.decode(bytes.subarray(0, bytes.length - cut));
      return true;
    } catch {
      // try without a cut character at the end
    }
  }
  return false;
}

/** True when `head` (the first bytes of a file; `whole` when that is all of it) is what `type` says, by magic bytes, not by name. */
export function contentMatches(type: AttachmentType, head: Buffer, whole: boolean): boolean {
  switch (type) {
    case 'application/pdf':
      return ascii(head, 0, 5) === '%PDF-';
    case 'image/png':
      return startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case 'image/jpeg':
      return startsWith(head, [0xff, 0xd8, 0xff]);
    case 'image/webp':
      return ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP';
    case 'image/heic':
      return ascii(head, 4, 8) === 'ftyp' && HEIC_BRANDS.includes(ascii(head, 8, 12));
    case 'text/plain':
    case 'text/csv':
      return looksLikeText(head, whole);
    default:
      return false;
  }
}
