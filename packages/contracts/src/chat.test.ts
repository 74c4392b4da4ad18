import { describe, expect, it } from 'vitest';
import { AskRequest } from './chat';

describe('AskRequest', () => {
  it("keeps an attachment's name on one line without control or invisible characters (shown to others as is)", () => {
    const parsed = AskRequest.parse({
      source: 'openai_web',
      model: 'gpt_4',
      new_conversation: true,
      text_content: 'see the file',
      openai_web_attachments: [{ id: 'file-1', name: 'invoice\u202Efdp.exe\n\u0000', size: 11 }],
    });
    expect(parsed.openai_web_attachments).toEqual([{ id: 'file-1', name: 'invoicefdp.exe', size: 11 }]);
  });
});
