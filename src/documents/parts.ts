// Blocks every billing document shares: the seller's letterhead, the customer's address, a key/value list and a table.
import type { Pdf } from './pdf.ts';

/** A named party with its postal address, one line each. */
export interface Party {
  name: string;
  address: string[];
  email?: string;
  tax_id?: string | null;
}

const LEFT = 50;
const WIDTH = 495;

/** Seller at the top right, the document's title at the top left. */
export function letterhead(pdf: Pdf, title: string, seller: Party): void {
  pdf.font('Helvetica-Bold').fontSize(22).text(title, LEFT, 50, { width: 250 });
  pdf.font('Helvetica-Bold').fontSize(10).text(seller.name, 330, 50, { width: 215, align: 'right' });
  pdf.font('Helvetica').fontSize(9);
  for (const line of seller.address) pdf.text(line, 330, undefined, { width: 215, align: 'right' });
  pdf.moveDown(2);
}

/** "Bill to" with the customer's name, address, email and tax id, beside the document's facts (number, dates). */
export function partyAndFacts(pdf: Pdf, heading: string, customer: Party, facts: [string, string][]): void {
  const top = Math.max(pdf.y, 130);
  pdf.font('Helvetica-Bold').fontSize(9).text(heading, LEFT, top, { width: 240 });
  pdf.font('Helvetica').fontSize(10).text(customer.name, { width: 240 });
  for (const line of customer.address) pdf.text(line, { width: 240 });
  if (customer.email) pdf.text(customer.email, { width: 240 });
  if (customer.tax_id) pdf.text(`Tax id: ${customer.tax_id}`, { width: 240 });
  const leftEnd = pdf.y;
  pdf.y = top;
  for (const [k, v] of facts) {
    const y = pdf.y;
    pdf.font('Helvetica-Bold').fontSize(9).text(k, 320, y, { width: 100 });
    pdf.font('Helvetica').fontSize(9).text(v, 420, y, { width: 125, align: 'right' });
  }
  pdf.x = LEFT;
  pdf.y = Math.max(leftEnd, pdf.y) + 20;
}

/** A column of a table: its heading, its share of the width, right-aligned (amounts) or not. */
export interface Column {
  heading: string;
  width: number;
  right?: boolean;
}

/** A table with a heading row and a rule under it; rows break onto new pages as pdfkit flows. */
export function table(pdf: Pdf, columns: Column[], rows: string[][]): void {
  const total = columns.reduce((s, c) => s + c.width, 0);
  const widths = columns.map((c) => (c.width / total) * WIDTH);
  const row = (cells: string[], bold: boolean) => {
    if (pdf.y > 760) pdf.addPage();
    const y = pdf.y;
    let x = LEFT;
    let bottom = y;
    cells.forEach((cell, i) => {
      const w = widths[i] ?? 0;
      pdf.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9).text(cell, x + 2, y, { width: w - 4, align: columns[i]?.right ? 'right' : 'left' });
      bottom = Math.max(bottom, pdf.y);
      x += w;
    });
    pdf.x = LEFT;
    pdf.y = bottom + 4;
  };
  row(columns.map((c) => c.heading), true);
  pdf.moveTo(LEFT, pdf.y - 2).lineTo(LEFT + WIDTH, pdf.y - 2).lineWidth(0.5).stroke();
  for (const r of rows) row(r, false);
  pdf.moveDown(0.5);
}

/** Right-aligned label/amount pairs (subtotal, total, paid, amount due); `strong` rows in bold. */
export function totals(pdf: Pdf, rows: { label: string; value: string; strong?: boolean }[]): void {
  for (const r of rows) {
    const y = pdf.y;
    pdf.font(r.strong ? 'Helvetica-Bold' : 'Helvetica').fontSize(r.strong ? 11 : 9);
    pdf.text(r.label, 300, y, { width: 140, align: 'right' });
    pdf.text(r.value, 440, y, { width: 105, align: 'right' });
  }
  pdf.x = LEFT;
  pdf.moveDown(1);
}

/** A heading and a paragraph. */
export function section(pdf: Pdf, heading: string, text?: string): void {
  if (pdf.y > 720) pdf.addPage();
  pdf.x = LEFT;
  pdf.font('Helvetica-Bold').fontSize(11).text(heading, LEFT, pdf.y, { width: WIDTH });
  pdf.moveDown(0.3);
  if (text !== undefined) {
    pdf.font('Helvetica').fontSize(9).text(text, LEFT, pdf.y, { width: WIDTH });
    pdf.moveDown(0.8);
  }
}
