// The part of fontkit (pdfkit's own font reader, which ships no types) that render-pdf.ts uses.
declare module 'fontkit' {
  export interface Font {
    hasGlyphForCodePoint(codePoint: number): boolean
  }
  export function create(buffer: Buffer): Font
}
