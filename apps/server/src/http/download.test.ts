import { describe, expect, it } from 'vitest';
import { exportFileName } from '../services/export.service';
import { sanitizeFilename, servedContentType } from '../services/file.service';
import { contentDisposition } from './download';

describe('download headers', () => {
  it('names the file exactly (RFC 5987) with a safe ASCII fallback', () => {
    expect(contentDisposition('report.pdf')).toBe(
      `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`,
    );
    expect(contentDisposition('a "b"\\c\r\n.txt')).toBe(
      `attachment; filename="a _b__c.txt"; filename*=UTF-8''a%20%22b%22%5Cc.txt`,
    );
    // No control or invisible characters: a right-to-left override would make "invoice<RLO>fdp.exe" read as a PDF.
    expect(contentDisposition('invoice\u202efdp.exe')).toBe(
      `attachment; filename="invoicefdp.exe"; filename*=UTF-8''invoicefdp.exe`,
    );
    expect(contentDisposition("日本 (1)'*.png")).toBe(
      `attachment; filename="__ (1)'*.png"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%20%281%29%27%2A.png`,
    );
  });

  it('keeps client names for display only and serves only raster images as themselves', () => {
    expect(sanitizeFilename('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFilename('C:\\Users\\x\\cat.png')).toBe('cat.png');
    expect(sanitizeFilename('\u0000\u001f')).toBe('file');
    expect(sanitizeFilename('cat\u202egnp.exe')).toBe('catgnp.exe');
    expect(sanitizeFilename('zero\u200bwidth.png')).toBe('zerowidth.png');
    expect(exportFileName('Plan\u202e\tB/C\u200b', 'md')).toBe('Plan B C.md');
    expect(sanitizeFilename('x'.repeat(300))).toHaveLength(255);
    expect(servedContentType('image/png')).toBe('image/png');
    expect(servedContentType('IMAGE/JPEG; charset=x')).toBe('image/jpeg');
    expect(servedContentType('image/svg+xml')).toBe('application/octet-stream');
    expect(servedContentType('text/html')).toBe('application/octet-stream');
    expect(servedContentType(null)).toBe('application/octet-stream');
  });
});
