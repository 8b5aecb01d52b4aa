// The one place pdfkit is used: a page of a billing document drawn with the standard fonts pdfkit ships (nothing embedded or
// downloaded), and the bytes collected. Deterministic: the creation date is the document's own, so one input gives one output.

/** A PDF being drawn (pdfkit's document). */
export type Pdf = PDFKit.PDFDocument;

/** Draws a document with `draw` and answers its bytes; `created` is the date the metadata carries (the document's own date, never now). */
export async function renderPdf(meta: { title: string; created: Date }, draw: (pdf: Pdf) => void): Promise<Buffer> {
  // Loaded with the first document: a CLI command or a process that renders none does not load pdfkit (and its fonts).
  const { default: PDFDocument } = await import('pdfkit');
  const pdf = new PDFDocument({
    size: 'A4',
    margin: 50,
    compress: true,
    info: { Title: meta.title, Author: 'core-server', Creator: 'core-server', Producer: 'core-server', CreationDate: meta.created, ModDate: meta.created },
  });
  const chunks: Buffer[] = [];
  pdf.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    pdf.on('end', () => resolve());
    pdf.on('error', reject);
  });
  draw(pdf);
  pdf.end();
  await ended;
  return Buffer.concat(chunks);
}
