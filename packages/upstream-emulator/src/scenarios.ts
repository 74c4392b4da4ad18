/**
 * Magic prompts: the last user text of a request decides the reply. Everything here is deterministic
 * (apart from timestamps), so the same prompt always gives the same reply.
 */
import { gradientPng } from './png';
import type { PluginStore } from './plugins';
import { excerpt, longText, sentences } from './text';
import type { Fault } from './types';
import { deterministicUuid, epochSeconds, newFileId, seedOf } from './util';

export const SCENARIOS: readonly { trigger: string; description: string }[] = Object.freeze([
  {
    trigger: '(any other text)',
    description: 'A deterministic answer of a few sentences that quotes the start of the prompt.',
  },
  {
    trigger: 'markdown (anywhere in the prompt)',
    description: 'The answer adds a heading, a list, a fenced python code block and inline math $x^2$.',
  },
  { trigger: '#long N', description: 'An answer of exactly N words (default 200, at most 200000).' },
  {
    trigger: '#done',
    description: 'An answer with the literal text "[DONE]" in the middle; chunks never split that literal.',
  },
  {
    trigger: '#length',
    description:
      'A cut-off answer: web finish_details {type: "max_tokens"} (end_turn false, so a client offers continue); ' +
      'api finish_reason "length". A web `action: "continue"` completes it.',
  },
  {
    trigger: '#code',
    description:
      'Web: assistant `code` to recipient "python" → tool (python) `execution_output` with ' +
      'metadata.aggregate_result (stdout + image) → final assistant text. API: plain answer.',
  },
  {
    trigger: '#browse [query]',
    description:
      'Web: assistant `code` to "browser" (command "search") → `tether_browsing_display` → `tether_quote` → ' +
      'final text with _cite_metadata and citations whose indices point at 【n†source】 markers. API: plain answer.',
  },
  {
    trigger: '#dalle [prompt]',
    description:
      'Web: assistant `code` to "dalle.text2im" → tool (dalle.text2im) `multimodal_text` with two image parts ' +
      '(file-service:// pointers that download as real PNGs) → assistant text. API: plain answer.',
  },
  {
    trigger: '#plugin',
    description:
      'Web: assistant call to "<namespace>.<operation>" of the first requested plugin (else the first plugin) → ' +
      'tool message with metadata.invoked_plugin → assistant text. API: plain answer.',
  },
  {
    trigger: '#error',
    description:
      'Web: a python call whose tool message is `system_error` {name "tool_error"} → assistant text.',
  },
  {
    trigger: '(images or attachments)',
    description:
      'When the user content is multimodal_text with image parts, metadata.attachments is present, or (API) ' +
      'content has image_url parts, the answer first lists each asset pointer / file name received. Web: images ' +
      'that reference uploaded files (PUT and confirmed) are first shown back as image parts.',
  },
  { trigger: '#fault:status=N', description: 'Respond with HTTP status N and an error body.' },
  { trigger: '#fault:disconnect=N', description: 'Destroy the socket after N stream events.' },
  { trigger: '#fault:stall=N', description: 'Stop writing after N stream events; keep the socket open.' },
  {
    trigger: '#fault:malformed=N',
    description: 'Emit one `data: {not json` line after N events, then continue normally.',
  },
  {
    trigger: '#fault:error',
    description:
      'Emit an error inside the stream after the first assistant chunk (web: {"message":null,"error":…}; ' +
      'api: {"error":{…}} without [DONE]).',
  },
]);

export type Directive = 'long' | 'done' | 'code' | 'browse' | 'dalle' | 'plugin' | 'error' | 'length';

const DIRECTIVES: readonly Directive[] = [
  'long',
  'done',
  'code',
  'browse',
  'dalle',
  'plugin',
  'error',
  'length',
];

export const DEFAULT_STREAM_ERROR = 'Something went wrong while generating the response. (emulated fault)';

export interface PromptImage {
  assetPointer: string;
  width?: number;
  height?: number;
}

export interface PromptAttachment {
  id?: string;
  name?: string;
  size?: number;
}

/** What the scenario sees of a request: the last user text and the files that came with it. */
export interface PromptInput {
  text: string;
  images: PromptImage[];
  attachments: PromptAttachment[];
}

export interface ParsedPrompt {
  directive: Directive | null;
  /** Text after the directive. */
  argument: string;
  /** Fault requested by `#fault:` tokens, or null. */
  fault: Fault | null;
  /** The prompt without `#fault:` tokens. */
  clean: string;
}

export function parsePrompt(text: string): ParsedPrompt {
  let fault: Fault | null = null;
  const clean = text
    .replace(/#fault:([a-z]+)(?:=(\S+))?/gi, (_all, kind: string, value: string | undefined) => {
      const n = value === undefined ? NaN : Number.parseInt(value, 10);
      const f: Fault = fault ?? {};
      switch (kind.toLowerCase()) {
        case 'status':
          if (Number.isInteger(n) && n >= 100 && n <= 599) f.status = n;
          break;
        case 'disconnect':
          f.disconnectAfterChunks = Number.isInteger(n) && n >= 0 ? n : 0;
          break;
        case 'stall':
          f.stallAfterChunks = Number.isInteger(n) && n >= 0 ? n : 0;
          break;
        case 'malformed':
          f.malformedLineAfterChunks = Number.isInteger(n) && n >= 0 ? n : 0;
          break;
        case 'error':
          f.errorInStream = value ? value.replace(/_/g, ' ') : DEFAULT_STREAM_ERROR;
          break;
        default:
          return _all;
      }
      fault = f;
      return ' ';
    })
    .trim();
  const match = /^#([a-z]+)\b\s*([\s\S]*)$/i.exec(clean);
  const name = match?.[1]?.toLowerCase();
  const directive = DIRECTIVES.find((d) => d === name) ?? null;
  return { directive, argument: directive ? (match?.[2] ?? '').trim() : clean, fault, clean };
}

/** A file the reply creates (DALL·E images, code interpreter output), served by the files endpoints. */
export interface GeneratedFile {
  id: string;
  name: string;
  mimeType: string;
  bytes: Buffer;
}

export type PlannedContent =
  /** Streamed in chunks as `{content_type: "text", parts: [text]}`. */
  | { kind: 'text'; text: string }
  /** Streamed in chunks as `{content_type: "code", language, text}`. */
  | { kind: 'code'; language: string; text: string }
  /** Sent once, as is. */
  | { kind: 'static'; content: Record<string, unknown> };

export interface Citation {
  start_ix: number;
  end_ix: number;
  citation_format_type: string;
  metadata: Record<string, unknown>;
}

/** One web message of a reply. */
export interface PlannedMessage {
  role: 'assistant' | 'tool';
  /** Author name (tool messages). */
  name: string | null;
  recipient: string;
  content: PlannedContent;
  /** Extra message metadata. */
  metadata: Record<string, unknown>;
  endTurn: boolean | null;
  /** finish_details type of the final snapshot; null for tool messages. */
  finish: 'stop' | 'max_tokens' | null;
  /** Citations into the text; each snapshot carries those that are complete. */
  citations?: Citation[];
}

export interface WebReply {
  messages: PlannedMessage[];
  files: GeneratedFile[];
}

export interface ApiReply {
  text: string;
  finishReason: 'stop' | 'length';
}

function fileMentions(input: PromptInput): string {
  const lines: string[] = [];
  for (const image of input.images) {
    const size = image.width && image.height ? ` (${image.width}×${image.height})` : '';
    lines.push(`- image \`${excerpt(image.assetPointer, 80)}\`${size}`);
  }
  for (const file of input.attachments) {
    const details = [file.id, file.size !== undefined ? `${file.size} bytes` : undefined].filter(Boolean);
    const suffix = details.length > 0 ? ` (${details.join(', ')})` : '';
    lines.push(`- attachment \`${file.name ?? file.id ?? 'unnamed'}\`${suffix}`);
  }
  if (lines.length === 0) return '';
  const count = lines.length === 1 ? '1 file' : `${lines.length} files`;
  return `I received ${count}:\n${lines.join('\n')}\n\n`;
}

function plainAnswer(prompt: string): string {
  const seed = seedOf(prompt);
  const asked = prompt.trim() === '' ? 'You sent no text.' : `You asked: "${excerpt(prompt)}"`;
  if (!/markdown/i.test(prompt)) return `${asked}\n\n${sentences(seed, 3).join(' ')}`;
  const n = 2 + (seed % 8);
  const [first, second] = sentences(seed, 2);
  return [
    '## Answer',
    '',
    asked,
    '',
    first,
    '',
    `- **Deterministic**: ${second}`,
    '- **Formatted**: this list, the code block and the math below exercise the markdown renderer.',
    '',
    '```python',
    'def square(x):',
    '    return x ** 2',
    '',
    `print(square(${n}))  # ${n * n}`,
    '```',
    '',
    `Inline math: $x^2$ at $x = ${n}$ equals ${n * n}.`,
  ].join('\n');
}

const DONE_ANSWER =
  'Here is an answer that mentions the end-of-stream marker on purpose. ' +
  'The marker [DONE] appears mid-answer and the stream continues. ' +
  'A client that stops at any line containing that text would lose this last sentence.';

function lengthParts(prompt: string): { head: string; tail: string } {
  return {
    head:
      `You asked: "${excerpt(prompt)}"\n\nThis answer is deliberately long, so the emulated model reaches its ` +
      'token limit in the middle of a sentence, right before the',
    tail: ' end. This part arrived after the client asked to continue, and now the answer finishes normally.',
  };
}

function longCount(argument: string): number {
  const n = Number.parseInt(argument, 10);
  if (!Number.isFinite(n) || n <= 0) return 200;
  return Math.min(n, 200_000);
}

/** The answer text shared by both protocols (for web-only directives: the plain answer). */
function textAnswer(parsed: ParsedPrompt, input: PromptInput): ApiReply {
  const mentions = fileMentions(input);
  switch (parsed.directive) {
    case 'long':
      return {
        text: mentions + longText(longCount(parsed.argument), seedOf(parsed.clean)),
        finishReason: 'stop',
      };
    case 'done':
      return { text: mentions + DONE_ANSWER, finishReason: 'stop' };
    case 'length':
      return { text: mentions + lengthParts(parsed.clean).head, finishReason: 'length' };
    case 'code':
    case 'browse':
    case 'dalle':
    case 'plugin':
    case 'error':
    case null:
      return { text: mentions + plainAnswer(parsed.clean), finishReason: 'stop' };
  }
}

export function apiReply(parsed: ParsedPrompt, input: PromptInput): ApiReply {
  return textAnswer(parsed, input);
}

function finalText(text: string, finish: 'stop' | 'max_tokens' = 'stop'): PlannedMessage {
  return {
    role: 'assistant',
    name: null,
    recipient: 'all',
    content: { kind: 'text', text },
    metadata: {},
    endTurn: finish === 'stop',
    finish,
  };
}

function toolCall(recipient: string, language: string, code: string, metadata = {}): PlannedMessage {
  return {
    role: 'assistant',
    name: null,
    recipient,
    content: { kind: 'code', language, text: code },
    metadata,
    endTurn: false,
    finish: 'stop',
  };
}

function toolResult(name: string, content: Record<string, unknown>, metadata = {}): PlannedMessage {
  return {
    role: 'tool',
    name,
    recipient: 'all',
    content: { kind: 'static', content },
    metadata: { is_complete: true, ...metadata },
    endTurn: null,
    finish: null,
  };
}

function codeReply(parsed: ParsedPrompt, mentions: string): WebReply {
  const seed = seedOf(parsed.clean);
  const count = 3 + (seed % 5);
  const values = Array.from({ length: count }, (_, i) => i + 1);
  const squares = values.map((v) => v * v);
  const mean = squares.reduce((a, b) => a + b, 0) / squares.length;
  const code = [
    'import matplotlib.pyplot as plt',
    '',
    `values = list(range(1, ${count + 1}))`,
    'squares = [v ** 2 for v in values]',
    'print("squares:", squares)',
    'print("mean:", sum(squares) / len(squares))',
    'plt.plot(values, squares)',
    "plt.savefig('/mnt/data/squares.png')",
    'squares',
  ].join('\n');
  const stdout = `squares: [${squares.join(', ')}]\nmean: ${Number.isInteger(mean) ? mean.toFixed(1) : mean}\n`;
  const image: GeneratedFile = {
    id: newFileId(`code-image:${parsed.clean}`),
    name: 'squares.png',
    mimeType: 'image/png',
    bytes: gradientPng(seed, 640, 480),
  };
  const now = epochSeconds();
  const aggregate = {
    status: 'success',
    run_id: deterministicUuid(`run:${parsed.clean}`),
    start_time: now,
    update_time: now + 0.4,
    end_time: now + 0.5,
    code,
    final_expression_output: `[${squares.join(', ')}]`,
    in_kernel_exception: null,
    system_exception: null,
    messages: [
      { message_type: 'stream', time: now + 0.2, sender: 'server', stream_name: 'stdout', text: stdout },
      {
        message_type: 'image',
        time: now + 0.4,
        sender: 'server',
        image_url: `file-service://${image.id}`,
        width: 640,
        height: 480,
      },
    ],
    jupyter_messages: [],
    timeout_triggered: null,
  };
  return {
    files: [image],
    messages: [
      toolCall('python', 'python', code),
      toolResult(
        'python',
        { content_type: 'execution_output', text: `[${squares.join(', ')}]` },
        { aggregate_result: aggregate },
      ),
      finalText(
        `${mentions}The code ran successfully. The squares of 1 to ${count} are ${squares.join(', ')}, ` +
          `and their mean is ${mean}.\n\n[Download the chart](sandbox:/mnt/data/squares.png)`,
      ),
    ],
  };
}

function browseReply(parsed: ParsedPrompt, mentions: string): WebReply {
  const query = parsed.argument.trim() || 'Chat Commons upstream emulator';
  const slug =
    query
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'query';
  const sources = [
    {
      title: `${query}: an overview`,
      url: `https://example.com/articles/${slug}`,
      domain: 'example.com',
      text: `An overview of ${query}, with its history, main ideas and current status.`,
    },
    {
      title: `Notes on ${query}`,
      url: `https://docs.example.org/notes/${slug}`,
      domain: 'docs.example.org',
      text: `Practical notes on ${query}: common questions, pitfalls and further reading.`,
    },
  ];
  const citeMeta = sources.map((s) => ({
    type: 'webpage',
    title: s.title,
    url: s.url,
    text: s.text,
    pub_date: null,
    extra: null,
  }));
  const display = sources.map((s, i) => `# 【${i}†${s.title}†${s.domain}】\n${s.text}`).join('\n\n');
  const marker0 = '【0†source】';
  const marker1 = '【1†source】';
  const before0 = `${mentions}I searched the web for "${query}". The overview explains its main ideas`;
  const between = `. More practical details are collected in a set of notes`;
  const text = `${before0}${marker0}${between}${marker1}.`;
  const len = (s: string): number => Array.from(s).length;
  const start0 = len(before0);
  const start1 = start0 + len(marker0) + len(between);
  const citations: Citation[] = [
    {
      start_ix: start0,
      end_ix: start0 + len(marker0),
      citation_format_type: 'tether_og',
      metadata: citeMeta[0] ?? {},
    },
    {
      start_ix: start1,
      end_ix: start1 + len(marker1),
      citation_format_type: 'tether_og',
      metadata: citeMeta[1] ?? {},
    },
  ];
  const cite = { citation_format: { name: 'tether_og' }, metadata_list: citeMeta, original_query: null };
  const first = sources[0];
  const searchMeta = { command: 'search', args: [query], status: 'finished' };
  const final = finalText(text);
  final.metadata = { _cite_metadata: cite };
  final.citations = citations;
  return {
    files: [],
    messages: [
      toolCall('browser', 'unknown', `search(${JSON.stringify(query)})`, searchMeta),
      toolResult(
        'browser',
        { content_type: 'tether_browsing_display', result: display, summary: null },
        { ...searchMeta, _cite_metadata: cite },
      ),
      toolResult(
        'browser',
        {
          content_type: 'tether_quote',
          url: first?.url,
          domain: first?.domain,
          text: first?.text,
          title: first?.title,
        },
        { command: 'quote', args: ['0'], status: 'finished' },
      ),
      final,
    ],
  };
}

function dalleReply(parsed: ParsedPrompt, mentions: string): WebReply {
  const prompt = parsed.argument.trim() || 'A watercolor lighthouse at dawn';
  const seed = seedOf(`dalle:${prompt}`);
  const files: GeneratedFile[] = [0, 1].map((i) => ({
    id: newFileId(`dalle:${prompt}:${i}`),
    name: `dalle-${i + 1}.png`,
    mimeType: 'image/png',
    bytes: gradientPng(seed + i, 1024, 1024),
  }));
  const parts = files.map((f, i) => ({
    content_type: 'image_asset_pointer',
    asset_pointer: `file-service://${f.id}`,
    size_bytes: f.bytes.length,
    width: 1024,
    height: 1024,
    fovea: 512,
    metadata: {
      dalle: {
        gen_id: deterministicUuid(`gen:${prompt}:${i}`).slice(0, 16),
        prompt: `${prompt}, variation ${i + 1}`,
        seed: (seed + i) % 2147483647,
        serialization_title: 'DALL-E generation metadata',
      },
    },
  }));
  const call = JSON.stringify({ prompt, size: '1024x1024', n: 2 }, null, 2);
  return {
    files,
    messages: [
      toolCall('dalle.text2im', 'json', call),
      toolResult('dalle.text2im', { content_type: 'multimodal_text', parts }),
      finalText(
        `${mentions}Here are two images for "${excerpt(prompt, 80)}". Let me know if you want changes.`,
      ),
    ],
  };
}

function pluginReply(mentions: string, plugins: PluginStore, pluginIds: readonly string[] | null): WebReply {
  const call = plugins.callFor(pluginIds);
  const recipient = `${call.plugin.namespace}.${call.operation}`;
  return {
    files: [],
    messages: [
      toolCall(recipient, 'json', JSON.stringify(call.args, null, 2)),
      toolResult(
        recipient,
        { content_type: 'text', parts: [JSON.stringify(call.response)] },
        {
          invoked_plugin: {
            type: 'remote',
            namespace: call.plugin.namespace,
            plugin_id: call.plugin.id,
            http_response_status: 200,
          },
        },
      ),
      finalText(
        `${mentions}I used the ${call.plugin.manifest.name_for_human} plugin. It answered:\n\n` +
          `\`\`\`json\n${JSON.stringify(call.response, null, 2)}\n\`\`\``,
      ),
    ],
  };
}

function errorReply(mentions: string): WebReply {
  return {
    files: [],
    messages: [
      toolCall('python', 'python', 'import emulator_missing_module\nemulator_missing_module.run()'),
      toolResult('python', {
        content_type: 'system_error',
        name: 'tool_error',
        text: "Encountered exception: <class 'ModuleNotFoundError'>. The tool could not run the code.",
      }),
      finalText(`${mentions}The python tool reported an error, so I could not run the code this time.`),
    ],
  };
}

export interface WebReplyContext {
  plugins: PluginStore;
  /** Plugin ids of the conversation. */
  pluginIds: readonly string[] | null;
  /** A file uploaded through the files flow (bytes PUT and confirmed), by id; images of those are shown back. */
  uploadedFile?: (id: string) => { size: number } | undefined;
}

/**
 * The images of the question that reference really uploaded files, shown back as image parts (same asset
 * pointers) before the answer; null when there are none.
 */
function uploadedImagesEcho(input: PromptInput, ctx: WebReplyContext): PlannedMessage | null {
  const parts: Record<string, unknown>[] = [];
  for (const image of input.images) {
    const id = /^file-service:\/\/(.+)$/.exec(image.assetPointer)?.[1];
    const file = id ? ctx.uploadedFile?.(id) : undefined;
    if (!file) continue;
    parts.push({
      content_type: 'image_asset_pointer',
      asset_pointer: image.assetPointer,
      size_bytes: file.size,
      width: image.width ?? null,
      height: image.height ?? null,
    });
  }
  if (parts.length === 0) return null;
  const what = parts.length === 1 ? 'the image' : `the ${parts.length} images`;
  return {
    role: 'assistant',
    name: null,
    recipient: 'all',
    content: {
      kind: 'static',
      content: { content_type: 'multimodal_text', parts: [...parts, `Here is ${what} you uploaded.`] },
    },
    metadata: {},
    endTurn: false,
    finish: 'stop',
  };
}

export function webReply(parsed: ParsedPrompt, input: PromptInput, ctx: WebReplyContext): WebReply {
  const reply = directiveReply(parsed, input, ctx);
  const echo = uploadedImagesEcho(input, ctx);
  return echo ? { ...reply, messages: [echo, ...reply.messages] } : reply;
}

function directiveReply(parsed: ParsedPrompt, input: PromptInput, ctx: WebReplyContext): WebReply {
  const mentions = fileMentions(input);
  switch (parsed.directive) {
    case 'code':
      return codeReply(parsed, mentions);
    case 'browse':
      return browseReply(parsed, mentions);
    case 'dalle':
      return dalleReply(parsed, mentions);
    case 'plugin':
      return pluginReply(mentions, ctx.plugins, ctx.pluginIds);
    case 'error':
      return errorReply(mentions);
    case 'length':
      return { files: [], messages: [finalText(textAnswer(parsed, input).text, 'max_tokens')] };
    case 'long':
    case 'done':
    case null:
      return { files: [], messages: [finalText(textAnswer(parsed, input).text)] };
  }
}

/** Text appended by a web `action: "continue"`; `prompt` is the user text the continued answer replied to. */
export function continuationText(prompt: string, wasCutOff: boolean): string {
  const parsed = parsePrompt(prompt);
  if (parsed.directive === 'length') return lengthParts(parsed.clean).tail;
  const [sentence] = sentences(seedOf(`continue:${parsed.clean}`), 1);
  return wasCutOff ? ` ${sentence}` : `\n\nContinuing the answer: ${sentence}`;
}
