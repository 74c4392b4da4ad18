import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHAT_CLOSE } from '@cc/contracts';
import type { AskResponse, ChatMessage, ConversationHistory, UserRead } from '@cc/contracts';
import { i18n } from '../../../i18n';
import { onRequestError } from '../../../lib/api-client';
import type { ErrorEvent } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';
import { clearLoginFlag, setLoginFlag } from '../../../lib/session';
import { installDomStubs } from '../../../test/dom-stubs';
import { web, webUser } from '../../../test/fixtures';
import { ChatPanel } from './chat-panel';

/** A chat websocket the test drives: it opens, receives frames and closes when told. */
class FakeSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static all: FakeSocket[] = [];
  readyState = FakeSocket.CONNECTING;
  binaryType = 'blob';
  sent: unknown[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;

  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }

  send(data: string) {
    this.sent.push(JSON.parse(data));
  }

  close() {
    this.readyState = FakeSocket.CLOSED;
  }

  open() {
    this.readyState = FakeSocket.OPEN;
    act(() => this.onopen?.());
  }

  frame(frame: AskResponse) {
    act(() => this.onmessage?.({ data: JSON.stringify(frame) }));
  }

  serverClose(code: number, reason: string) {
    this.readyState = FakeSocket.CLOSED;
    act(() => this.onclose?.({ code, reason }));
  }
}

/** A web answer still being written (end_turn not set yet, as the server stores it while it streams). */
const running = (id: string, text: string, parent: string) =>
  web(id, 'assistant', text, { parent, model: 'gpt_3_5', metadata: { end_turn: null, recipient: 'all' } });

function historyOf(messages: ChatMessage[], currentNode: string): ConversationHistory {
  const mapping: Record<string, ChatMessage> = {};
  for (const m of messages) mapping[m.id] = { ...m, children: [] };
  for (const m of messages) if (m.parent) mapping[m.parent]!.children.push(m.id);
  return {
    _id: 'c1',
    source: 'openai_web',
    title: 'Recovery',
    create_time: '2026-01-01T00:00:00Z',
    update_time: '2026-01-01T00:00:00Z',
    mapping,
    current_node: currentNode,
    current_model: 'gpt_3_5',
    metadata: null,
  };
}

const question = web('q1', 'user', 'Tell me a story', { model: null });
const finished = web('a1', 'assistant', 'Once upon a time.', { parent: 'q1', model: 'gpt_3_5' });

let fetchCalls: string[];
let requestErrors: ErrorEvent[];
let offRequestErrors: () => void;

/** Every request of the page answers 10401, as for a session that is gone. */
function stubFetch() {
  fetchCalls = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string) => {
      fetchCalls.push(url);
      return Promise.resolve(
        new Response(JSON.stringify({ code: 10401, message: 'errors.userNotLogin', result: null }), {
          status: 401,
        }),
      );
    }),
  );
}

/** The list lays out rows of 100 px in a view of 600 (jsdom has no layout). */
function stubSizes() {
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockImplementation(function (this: HTMLElement) {
    return this.hasAttribute('data-index') ? 100 : 0;
  });
}

/**
 * The panel as the page shows it: with the cached history (a settled answer is merged into it). Read again, the
 * conversation is `stored`, as the server had it before the answer (its write comes a moment later).
 */
function CachedPanel({ stored }: { stored: ConversationHistory }) {
  const { data } = useQuery({ queryKey: queryKeys.conversation('c1'), queryFn: () => stored });
  return (
    <ChatPanel
      target={{ kind: 'conversation', conversationId: 'c1', history: data, loading: false }}
      onConversationStarted={() => undefined}
      onBusyChange={() => undefined}
    />
  );
}

function renderPanel(history: ConversationHistory, user: UserRead = webUser(5)) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 60_000 } } });
  client.setQueryData(queryKeys.me, user);
  client.setQueryData(queryKeys.conversation('c1'), history);
  render(
    <QueryClientProvider client={client}>
      <MantineProvider>
        <CachedPanel stored={history} />
      </MantineProvider>
    </QueryClientProvider>,
  );
  // On opening, the panel looks for the user's answer in flight.
  const resume = FakeSocket.all[0]!;
  resume.open();
  expect(resume.sent).toEqual([{ type: 'resume', ask_id: null, after: 0 }]);
  return { resume, client };
}

/** Finds no answer in flight (nothing to resume). */
function nothingToResume(resume: FakeSocket) {
  resume.serverClose(CHAT_CLOSE.answerNotFound.code, CHAT_CLOSE.answerNotFound.reason);
}

/** Types a question and sends it: the socket that carries it, open. */
function ask(text: string): FakeSocket {
  const count = FakeSocket.all.length;
  fireEvent.change(screen.getByTestId('chat-input'), { target: { value: text } });
  fireEvent.click(screen.getByTestId('send-button'));
  const socket = FakeSocket.all[count];
  if (!socket) throw new Error('no socket opened');
  socket.open();
  return socket;
}

const listText = () => screen.getByTestId('message-list').textContent ?? '';
const occurrences = (text: string, part: string) => text.split(part).length - 1;

beforeEach(async () => {
  installDomStubs();
  stubSizes();
  FakeSocket.all = [];
  vi.stubGlobal('WebSocket', FakeSocket);
  stubFetch();
  setLoginFlag();
  requestErrors = [];
  offRequestErrors = onRequestError((event) => requestErrors.push(event));
  await i18n.changeLanguage('en-US');
});
afterEach(() => {
  offRequestErrors();
  cleanup();
  clearLoginFlag();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('an answer resumed after a reload', () => {
  it('replaces its stored copy: the regenerated answer shows once, its text not doubled', async () => {
    const old = web('a1', 'assistant', 'The first version.', { parent: 'q1', model: 'gpt_3_5' });
    // The server already wrote part of the regenerated answer and made it the current node.
    const stored = running('a2', 'Second version, so far', 'q1');
    const { resume } = renderPanel(historyOf([question, old, stored], 'a2'));
    await waitFor(() => expect(listText()).toContain('Second version, so far'));

    resume.frame({
      type: 'message',
      conversation_id: 'c1',
      message: running('a2', 'Second version, so far and more', 'q1'),
    });
    await waitFor(() => expect(listText()).toContain('Second version, so far and more'));
    expect(occurrences(listText(), 'Second version')).toBe(1);
    expect(listText()).not.toContain('The first version.');
    expect(screen.getByTestId('stop-button')).toBeTruthy();
  });

  it('leaves the branch the stored current node still shows (reloaded before the first write)', async () => {
    const old = web('a1', 'assistant', 'The first version.', {
      parent: 'q1',
      model: 'gpt_3_5',
      metadata: { end_turn: null, recipient: 'all' },
    });
    const { resume } = renderPanel(historyOf([question, old], 'a1'));
    await waitFor(() => expect(listText()).toContain('The first version.'));

    resume.frame({ type: 'message', conversation_id: 'c1', message: running('a2', 'Second version', 'q1') });
    await waitFor(() => expect(listText()).toContain('Second version'));
    expect(listText()).not.toContain('The first version.');
    expect(listText()).toContain('Tell me a story');
  });

  it('a resumed follow-up question and its answer are shown once, after the stored path', async () => {
    const q2 = web('q2', 'user', 'And then?', { parent: 'a1', model: null });
    const stored = running('a2', 'Then the end', 'q2');
    const { resume } = renderPanel(historyOf([question, finished, q2, stored], 'a2'));
    await waitFor(() => expect(listText()).toContain('Then the end'));

    resume.frame({ type: 'message', conversation_id: 'c1', message: q2 });
    resume.frame({
      type: 'message',
      conversation_id: 'c1',
      message: running('a2', 'Then the end came', 'q2'),
    });
    await waitFor(() => expect(listText()).toContain('Then the end came'));
    expect(occurrences(listText(), 'And then?')).toBe(1);
    expect(occurrences(listText(), 'Then the end')).toBe(1);
    expect(listText()).toContain('Once upon a time.');
  });
});

describe('a cut web answer continued', () => {
  it('shows the answer once while it goes on (each snapshot carries the whole message)', async () => {
    const cut = web('a1', 'assistant', 'The beginning of it', {
      parent: 'q1',
      model: 'gpt_3_5',
      metadata: { end_turn: false, recipient: 'all', finish_details: { type: 'max_tokens' } },
    });
    const { resume } = renderPanel(historyOf([question, cut], 'a1'));
    nothingToResume(resume);
    fireEvent.click(await screen.findByTestId('continue-button'));
    const socket = FakeSocket.all[1]!;
    socket.open();
    socket.frame({
      type: 'message',
      conversation_id: 'c1',
      message: running('a1', 'The beginning of it, and the rest', 'q1'),
    });
    await waitFor(() => expect(listText()).toContain('The beginning of it, and the rest'));
    expect(occurrences(listText(), 'The beginning of it')).toBe(1);
  });
});

describe('an ask refused because the session is gone', () => {
  it('opens the login-expired dialog only: no error card, no retry, no toast; the question goes back to the input', async () => {
    const { resume } = renderPanel(historyOf([question, finished], 'a1'));
    nothingToResume(resume);
    await waitFor(() => expect(listText()).toContain('Once upon a time.'));
    const calls = fetchCalls.length;

    const socket = ask('Are you there?');
    expect(socket.sent).toHaveLength(1);
    socket.serverClose(CHAT_CLOSE.unauthorized.code, CHAT_CLOSE.unauthorized.reason);

    await waitFor(() => expect(requestErrors).toHaveLength(1));
    expect(requestErrors[0]).toMatchObject({ authDialog: true, toast: false });
    expect(screen.queryByTestId('ask-error')).toBeNull();
    expect(screen.queryByText(/1008/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    expect(screen.getByTestId<HTMLTextAreaElement>('chat-input').value).toBe('Are you there?');
    // Nothing is fetched again to be refused once more (each refusal would toast).
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fetchCalls.slice(calls)).toEqual([]);
    expect(requestErrors).toHaveLength(1);
  });
});

describe('no asks left', () => {
  it('with no asks left for the model, nothing can be sent and the box says why', async () => {
    const { resume } = renderPanel(historyOf([question, finished], 'a1'), webUser(0));
    nothingToResume(resume);
    expect(screen.getByTestId('remaining-asks').textContent).toBe('Asks left: 0');
    fireEvent.change(screen.getByTestId('chat-input'), { target: { value: 'One more?' } });
    expect(screen.getByTestId<HTMLButtonElement>('send-button').disabled).toBe(true);
    expect(screen.getByTestId('send-notice').textContent).toBe(
      'No asks left for this model: you can send again when your quota is raised or renewed',
    );
    fireEvent.keyDown(screen.getByTestId('chat-input'), { key: 'Enter' });
    expect(FakeSocket.all).toHaveLength(1);
    // Regenerating the answer or editing the question would ask too: neither is offered.
    expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull();
    expect(screen.queryByTestId('edit-button')).toBeNull();
  });

  it('in Chinese too', async () => {
    await i18n.changeLanguage('zh-CN');
    const { resume } = renderPanel(historyOf([question, finished], 'a1'), webUser(0));
    nothingToResume(resume);
    expect(screen.getByTestId('send-notice').textContent).toBe(
      '此模型已无剩余提问次数：额度增加或恢复后才能再发送',
    );
  });

  it('with asks left, sending is possible and nothing is said', async () => {
    const { resume } = renderPanel(historyOf([question, finished], 'a1'), webUser(3));
    nothingToResume(resume);
    fireEvent.change(screen.getByTestId('chat-input'), { target: { value: 'One more?' } });
    expect(screen.getByTestId<HTMLButtonElement>('send-button').disabled).toBe(false);
    expect(screen.queryByTestId('send-notice')).toBeNull();
    expect(screen.getByRole('button', { name: 'Regenerate' })).toBeTruthy();
    expect(screen.getByTestId('edit-button')).toBeTruthy();
  });

  it('an ask refused for the quota says so without a retry; it can be withdrawn', async () => {
    const { resume } = renderPanel(historyOf([question, finished], 'a1'), webUser(1));
    nothingToResume(resume);
    const socket = ask('One more?');
    socket.frame({ type: 'error', tip: 'errors.noAvailableTotalAskCount', error_detail: null });
    socket.serverClose(CHAT_CLOSE.refused.code, 'errors.noAvailableTotalAskCount');

    const card = await screen.findByTestId('ask-error');
    expect(card.textContent).toContain('No asks left in total');
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Withdraw message' }));
    await waitFor(() => expect(screen.queryByTestId('ask-error')).toBeNull());
    expect(screen.getByTestId<HTMLTextAreaElement>('chat-input').value).toBe('One more?');
  });

  it('another failure keeps its retry', async () => {
    const { resume } = renderPanel(historyOf([question, finished], 'a1'), webUser(1));
    nothingToResume(resume);
    const socket = ask('One more?');
    socket.frame({ type: 'error', tip: 'errors.timeout', error_detail: null });
    socket.serverClose(CHAT_CLOSE.timeout.code, CHAT_CLOSE.timeout.reason);
    await screen.findByTestId('ask-error');
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Withdraw message' })).toBeTruthy();
  });
});

describe('an answer that ended before it was complete', () => {
  /** A web answer as it streams (and as the server stores it meanwhile): the upstream has not finished it. */
  const streaming = (id: string, text: string, parent: string) =>
    web(id, 'assistant', text, {
      parent,
      model: 'gpt_3_5',
      metadata: { end_turn: null, recipient: 'all', message_status: 'in_progress' },
    });
  const notes = () => screen.queryAllByTestId('answer-incomplete');

  it('is not marked while it streams; stopped, it is marked at once', async () => {
    const { resume, client } = renderPanel(historyOf([question, finished], 'a1'));
    nothingToResume(resume);
    await waitFor(() => expect(listText()).toContain('Once upon a time.'));
    expect(notes()).toEqual([]);

    const socket = ask('And then?');
    socket.frame({
      type: 'message',
      conversation_id: 'c1',
      message: web('q2', 'user', 'And then?', { parent: 'a1' }),
    });
    socket.frame({ type: 'message', conversation_id: 'c1', message: streaming('a2', 'Then the', 'q2') });
    await waitFor(() => expect(listText()).toContain('Then the'));
    socket.frame({ type: 'message', conversation_id: 'c1', message: streaming('a2', 'Then the wolf', 'q2') });
    await waitFor(() => expect(listText()).toContain('Then the wolf'));
    expect(notes()).toEqual([]);

    fireEvent.click(screen.getByTestId('stop-button'));
    await waitFor(() => expect(notes()).toHaveLength(1));
    // Not read again at once (the server may not have written it yet): the answer stays, marked.
    await act(async () => undefined);
    await waitFor(() => expect(client.isFetching()).toBe(0));
    expect(notes()).toHaveLength(1);
    expect(listText()).toContain('Then the wolf');
    expect(notes()[0]!.textContent).toBe('Answer incomplete (stopped or cut off)');
    expect(notes()[0]!.closest('article')!.textContent).toContain('Then the wolf');
  });

  it('a stored unfinished answer is marked once the chat knows it is not running', async () => {
    const { resume } = renderPanel(historyOf([question, streaming('a1', 'Once upon', 'q1')], 'a1'));
    await waitFor(() => expect(listText()).toContain('Once upon'));
    // It may still be streaming at the server (a reload): the resume says.
    expect(notes()).toEqual([]);
    nothingToResume(resume);
    await waitFor(() => expect(notes()).toHaveLength(1));
  });

  it('an answer resumed in another conversation leaves this one’s mark alone', async () => {
    const { resume } = renderPanel(historyOf([question, streaming('a1', 'Once upon', 'q1')], 'a1'));
    await waitFor(() => expect(listText()).toContain('Once upon'));
    resume.frame({ type: 'message', conversation_id: 'c2', message: streaming('x1', 'Elsewhere', 'x0') });
    await waitFor(() => expect(notes()).toHaveLength(1));
    expect(listText()).not.toContain('Elsewhere');
  });
});
