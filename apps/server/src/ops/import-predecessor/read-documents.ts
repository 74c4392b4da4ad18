import { readFileSync } from 'node:fs';

/**
 * Decodes MongoDB Extended JSON as `mongoexport` writes it (relaxed or canonical): `{$date}`, `{$oid}`,
 * `{$numberLong}`, `{$numberInt}`, `{$numberDouble}`, `{$numberDecimal}`, `{$binary}` uuids. Dates become ISO text.
 */
export function decodeExtendedJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeExtendedJson);
  if (!value || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1) {
    const k = keys[0] ?? '';
    const v = o[k];
    switch (k) {
      case '$date': {
        const raw = decodeExtendedJson(v);
        const d = new Date(typeof raw === 'string' ? raw : Number(raw));
        return Number.isNaN(d.getTime()) ? null : d.toISOString();
      }
      case '$oid':
      case '$numberDecimal':
        return String(v);
      case '$numberLong':
      case '$numberInt':
      case '$numberDouble':
        return Number(v);
    }
  }
  if (keys.length === 1 && keys[0] === '$binary') {
    const b = o.$binary as { base64?: string; subType?: string };
    if (b.base64 && (b.subType === '04' || b.subType === '03')) {
      const hex = Buffer.from(b.base64, 'base64').toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }
  }
  if (keys.length === 1 && keys[0] === '$uuid') return String(o.$uuid);
  return Object.fromEntries(keys.map((k) => [k, decodeExtendedJson(o[k])]));
}

/** Reads documents exported as one JSON array (`mongoexport --jsonArray`) or as JSON lines (the default). */
export function readDocuments(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, 'utf8').trim();
  if (text === '') return [];
  let docs: unknown[];
  if (text.startsWith('[')) {
    docs = JSON.parse(text) as unknown[];
  } else {
    docs = text
      .split('\n')
      .map((line, i) => ({ line: line.trim(), i }))
      .filter(({ line }) => line !== '')
      .map(({ line, i }) => {
        try {
          return JSON.parse(line) as unknown;
        } catch (e) {
          throw new Error(`${file}, line ${i + 1}: ${(e as Error).message}`, { cause: e });
        }
      });
  }
  return docs
    .map(decodeExtendedJson)
    .filter((d): d is Record<string, unknown> => !!d && typeof d === 'object' && !Array.isArray(d));
}
