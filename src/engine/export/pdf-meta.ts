// The document information of an exported PDF: its title, the person who exported it, when,
// and that Ursa made it (Chromium would otherwise name itself and leave the title empty).

export interface PdfMeta {
  title: string;
  /** The caller's e-mail. */
  author: string;
  /** Creation and modification date; now by default. */
  date?: Date;
}

export const PRODUCER = 'Ursa';

/** `pdf` with its document information set (title shown in viewers' title bars). */
export async function withPdfMeta(pdf: Uint8Array, meta: PdfMeta): Promise<Buffer> {
  // Loaded here: most processes never export a PDF. pdf-lib is CommonJS: under Node its
  // names are the module's own, in the server's bundle they are its default export's.
  const lib = (await import('pdf-lib')) as typeof import('pdf-lib') & {
    default?: typeof import('pdf-lib');
  };
  const { PDFDocument } = lib.PDFDocument ? lib : lib.default!;
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const date = meta.date ?? new Date();
  doc.setTitle(meta.title, { showInWindowTitleBar: true });
  doc.setAuthor(meta.author);
  doc.setCreationDate(date);
  doc.setModificationDate(date);
  doc.setProducer(PRODUCER);
  doc.setCreator(PRODUCER);
  return Buffer.from(await doc.save());
}
