import { describe, expect, it } from 'vitest';
import { AskRequest } from '@cc/contracts';
import { chain, web } from '../../../test/fixtures';
import { buildAskRequest, makeTempUserMessage } from './build-request';

const title = (model: string) => `New Chat (${model})`;

describe('buildAskRequest', () => {
  it('builds a valid new web conversation request with a blank title left to the server', () => {
    const request = buildAskRequest(
      { kind: 'draft', draft: { source: 'openai_web', model: 'gpt_4_plugins', openaiWebPlugins: ['p1'] } },
      'hello',
      title,
    );
    expect(request).toMatchObject({
      new_conversation: true,
      new_title: null,
      openai_web_plugin_ids: ['p1'],
      stream_mode: 'delta',
    });
    expect(AskRequest.safeParse(request).success).toBe(true);
  });

  it('names a new API conversation after its model when no title was given', () => {
    const request = buildAskRequest(
      { kind: 'draft', draft: { source: 'openai_api', model: 'gpt_3_5', openaiWebPlugins: [] } },
      'q',
      title,
    );
    expect(request.new_title).toBe('New Chat (GPT-3.5)');
  });

  it('continues an existing conversation from its current node', () => {
    const history = chain([
      web('11111111-1111-4111-8111-111111111111', 'user', 'a'),
      web('22222222-2222-4222-8222-222222222222', 'assistant', 'b'),
    ]);
    const request = buildAskRequest(
      { kind: 'conversation', conversationId: '33333333-3333-4333-8333-333333333333', history },
      ':continue',
      title,
    );
    expect(request).toMatchObject({
      new_conversation: false,
      conversation_id: '33333333-3333-4333-8333-333333333333',
      parent: '22222222-2222-4222-8222-222222222222',
      model: 'gpt_4',
      text_content: ':continue',
    });
    expect(AskRequest.safeParse(request).success).toBe(true);
  });

  it('makes temporary user bubbles of the right source shape', () => {
    expect(makeTempUserMessage('openai_api', 'x', 'gpt_3_5')).toMatchObject({
      source: 'openai_api',
      content: { text: 'x' },
    });
    expect(makeTempUserMessage('openai_web', 'x', 'gpt_4').id.startsWith('temp_')).toBe(true);
  });

  it('adds uploaded files on the web source (images as attachments and image parts), never on the API source', () => {
    const files = {
      openai_web_attachments: [
        { name: 'a.png', id: 'file-a', size: 10, mime_type: 'image/png', width: 2, height: 3 },
        { name: 'n.txt', id: 'file-n', size: 5, mime_type: 'text/plain' },
      ],
      openai_web_multimodal_image_parts: [
        { asset_pointer: 'file-service://file-a', size_bytes: 10, width: 2, height: 3 },
      ],
    };
    const request = buildAskRequest(
      { kind: 'draft', draft: { source: 'openai_web', model: 'gpt_4', openaiWebPlugins: [] } },
      'what is in these?',
      title,
      files,
    );
    expect(request).toMatchObject(files);
    expect(AskRequest.safeParse(request).success).toBe(true);
    // Images need no text.
    expect(
      AskRequest.safeParse(
        buildAskRequest(
          { kind: 'draft', draft: { source: 'openai_web', model: 'gpt_4', openaiWebPlugins: [] } },
          '',
          title,
          files,
        ),
      ).success,
    ).toBe(true);
    const api = buildAskRequest(
      { kind: 'draft', draft: { source: 'openai_api', model: 'gpt_4', openaiWebPlugins: [] } },
      'q',
      title,
      files,
    );
    expect(api.openai_web_attachments).toBeUndefined();
    expect(api.openai_web_multimodal_image_parts).toBeUndefined();
    const none = buildAskRequest(
      { kind: 'draft', draft: { source: 'openai_web', model: 'gpt_4', openaiWebPlugins: [] } },
      'q',
      title,
      { openai_web_attachments: null, openai_web_multimodal_image_parts: null },
    );
    expect('openai_web_attachments' in none).toBe(false);
  });

  it('shows the images and attachments in the temporary bubble', () => {
    const message = makeTempUserMessage('openai_web', 'look', 'gpt_4', {
      openai_web_attachments: [{ name: 'n.txt', id: 'file-n', size: 5, mime_type: 'text/plain' }],
      openai_web_multimodal_image_parts: [
        { asset_pointer: 'file-service://file-a', size_bytes: 10, width: 2, height: 3 },
      ],
    });
    expect(message).toMatchObject({
      content: {
        content_type: 'multimodal_text',
        parts: [{ asset_pointer: 'file-service://file-a', width: 2, height: 3 }, 'look'],
      },
      metadata: { attachments: [{ id: 'file-n', name: 'n.txt', size: 5, mimeType: 'text/plain' }] },
    });
  });
});
