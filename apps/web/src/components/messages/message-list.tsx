import { ActionIcon, Tooltip } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useEffectEvent, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { KeyboardEvent, ReactNode, TouchEvent, WheelEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChatMessage } from '@cc/contracts';
import { textOf } from '../../lib/conversation/history';
import type { MessageGroup } from '../../lib/conversation/history';
import { ArrowDownIcon } from '../icons';
import { DeferMarkdownContext } from './conversation-context';
import { MessageRow } from './message-row';

export interface MessageListProps {
  groups: MessageGroup[];
  model: string | null | undefined;
  userMarkdown: boolean;
  /** A new key (another conversation) jumps to the latest message. */
  resetKey: string;
  /** A message to scroll to and highlight briefly instead (a search result); ignored when not on the shown path. */
  focusMessageId?: string | null;
  /** Rendered after the last row, inside the scroll area (pending answer, error card). */
  footer?: ReactNode;
  /** Wrap long code lines (preference codeAutoWrap). */
  codeWrap?: boolean;
  /** The row of the answer being received: not marked incomplete while it streams. */
  liveGroupId?: string | null;
}

const NEAR_BOTTOM_PX = 80;
const SCROLL_UP_KEYS = new Set(['ArrowUp', 'PageUp', 'Home']);
/** A row's height until it is measured: its frame, plus its text's lines. */
const ROW_FRAME_PX = 56;
const LINE_PX = 24;
const CHARS_PER_LINE = 90;
const MAX_ESTIMATED_ROW_PX = 3000;

const MAX_ESTIMATED_LINES = Math.ceil(MAX_ESTIMATED_ROW_PX / LINE_PX);
/** Lines per message, counted once per message object (a streaming answer is a new object per frame). */
const estimatedLines = new WeakMap<ChatMessage, number>();

function linesOf(message: ChatMessage): number {
  let lines = estimatedLines.get(message);
  if (lines === undefined) {
    const text = textOf(message);
    lines = 0;
    for (let from = 0; lines < MAX_ESTIMATED_LINES;) {
      const end = text.indexOf('\n', from);
      lines += Math.max(1, Math.ceil(((end === -1 ? text.length : end) - from) / CHARS_PER_LINE));
      if (end === -1) break;
      from = end + 1;
    }
    estimatedLines.set(message, lines);
  }
  return lines;
}

function estimateRowHeight(group: MessageGroup | undefined): number {
  let lines = 0;
  for (const message of group?.messages ?? []) lines += linesOf(message);
  return Math.min(MAX_ESTIMATED_ROW_PX, ROW_FRAME_PX + Math.max(1, lines) * LINE_PX);
}

/** The row a list opens at: the message asked for, else the latest. */
function initialIndex(count: number, focusIndex: number): number {
  return focusIndex >= 0 ? focusIndex : count - 1;
}
/** How long a message opened from a search result stays highlighted. */
const FOCUS_HIGHLIGHT_MS = 2500;

/**
 * Virtualised message rows: only the rows in view (plus a few) are in the DOM, measured as they render, so a
 * conversation of thousands of messages opens at its latest message with a bounded DOM. Follows new content
 * only while the reader is near the bottom; otherwise offers a "jump to latest" button.
 */
export function MessageList({
  groups,
  model,
  userMarkdown,
  resetKey,
  focusMessageId,
  footer,
  codeWrap,
  liveGroupId = null,
}: MessageListProps) {
  const { t } = useTranslation();
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const [showJump, setShowJump] = useState(false);
  const focusIndex = focusMessageId
    ? groups.findIndex((g) => g.messages.some((m) => m.id === focusMessageId))
    : -1;
  // The build does not run the React Compiler, so nothing memoises this component or the virtualizer's functions.
  // eslint-disable-next-line react-hooks/incompatible-library -- the warning is about compiler memoisation only
  const virtualizer = useVirtualizer({
    count: groups.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => estimateRowHeight(groups[index]),
    // The first render already shows the rows the list opens at (the latest, or the message asked for), not the
    // first rows of the conversation, rendered and thrown away when the list jumps to its end.
    initialOffset: () => {
      let offset = 0;
      for (let i = 0; i <= initialIndex(groups.length, focusIndex); i++)
        offset += estimateRowHeight(groups[i]);
      return offset;
    },
    overscan: 4,
    getItemKey: (index) => groups[index]?.id ?? index,
    // The rows' places and the list's height are written to the DOM directly; the list re-renders only when rows
    // come into or leave the view. Following a streaming answer scrolls every frame and its row grows: that no
    // longer re-renders the list once per scroll and per measurement.
    directDomUpdates: true,
    // A row re-measured while the reader is at the end (a streaming answer growing) keeps the end in view: the
    // virtualizer moves the scroll by the growth when it measures, in the same frame, instead of a follow-up scroll
    // on the next frames. Its end is the last row's; below it are the footer and the spacer, so a reader who
    // scrolled up further than those (about NEAR_BOTTOM_PX) is not followed.
    anchorTo: 'end',
  });

  // A follow of new rows waiting for its frame.
  const follow = useRef<number | null>(null);
  // Where the last scroll event left the list: a reader who scrolls up moves it up. Content growing below (an answer
  // that grew before the list caught up) leaves it where it was, and does not stop the following.
  const lastScrollTop = useRef(0);
  /** The reader asked to scroll up (wheel, keys, touch) and the scroll event of it has not come yet. */
  const readerScrollsUp = useRef(false);
  const notePosition = useCallback(
    (el: HTMLDivElement) => {
      const near = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
      const movedUp = readerScrollsUp.current || el.scrollTop < lastScrollTop.current;
      readerScrollsUp.current = false;
      lastScrollTop.current = el.scrollTop;
      const wasAtBottom = atBottom.current;
      if (near) atBottom.current = true;
      else if (movedUp) atBottom.current = false;
      if (wasAtBottom && !atBottom.current) {
        // Scrolled up from the bottom: a follow still under way (new rows: the virtualizer keeps scrolling to the
        // last row while its target moves, for up to seconds) must not pull the reader back down. A scroll to a
        // message asked for (a search result) starts away from the bottom and keeps its own correction.
        virtualizer.cancelScroll();
        if (follow.current !== null) cancelAnimationFrame(follow.current);
        follow.current = null;
      }
      setShowJump(!atBottom.current);
    },
    [virtualizer],
  );
  /**
   * Whether to keep the list at the bottom now. Not while the reader's own scroll up is under way: its scroll event
   * comes with the next frame, and a render before it (they type, the server answers) would otherwise move the list
   * back down and their scroll would be lost. The scroll event decides.
   */
  const follows = () => atBottom.current && !readerScrollsUp.current;
  const handleScroll = () => {
    if (scrollRef.current) notePosition(scrollRef.current);
  };
  /** Only when there is somewhere to scroll up to: otherwise no scroll event would come to decide. */
  const noteScrollUp = (el: HTMLDivElement) => {
    if (el.scrollTop > 0) readerScrollsUp.current = true;
  };
  const handleWheel = (event: WheelEvent<HTMLDivElement>) => {
    if (event.deltaY < 0) noteScrollUp(event.currentTarget);
  };
  /** Keys that scroll the list up when it has the focus itself (not a field or a button inside a message). */
  const handleKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    // Space scrolls down; with Shift, up.
    const up = SCROLL_UP_KEYS.has(event.key) || (event.key === ' ' && event.shiftKey);
    if (event.target === event.currentTarget && up) noteScrollUp(event.currentTarget);
  };
  const touchY = useRef<number | null>(null);
  const handleTouchStart = (event: TouchEvent<HTMLDivElement>) => {
    touchY.current = event.touches[0]?.clientY ?? null;
  };
  /** A finger moving down the screen scrolls the list up. */
  const handleTouchMove = (event: TouchEvent<HTMLDivElement>) => {
    const y = event.touches[0]?.clientY;
    if (y !== undefined && touchY.current !== null && y > touchY.current) noteScrollUp(event.currentTarget);
    touchY.current = y ?? null;
  };

  const scrollToBottom = useCallback(
    (frames = 1) => {
      const step = (left: number) => {
        const el = scrollRef.current;
        // The reader scrolled away meanwhile: theirs to decide.
        if (!el || !follows()) return;
        el.scrollTop = el.scrollHeight;
        if (left > 1) requestAnimationFrame(() => step(left - 1));
      };
      if (groups.length > 0) virtualizer.scrollToIndex(groups.length - 1, { align: 'end' });
      step(frames);
    },
    [groups.length, virtualizer],
  );

  const focusGroupId = focusIndex >= 0 ? (groups[focusIndex]?.id ?? null) : null;
  const [flashId, setFlashId] = useState<string | null>(null);

  const jumpToLatest = useEffectEvent(() => {
    if (focusIndex >= 0) return;
    atBottom.current = true;
    readerScrollsUp.current = false;
    setShowJump(false);
    scrollToBottom(6);
  });
  // Only when the conversation changes, not on every new message.
  useLayoutEffect(() => {
    jumpToLatest();
  }, [resetKey]);

  // After every render (new rows, a growing answer, rows re-measured when the markdown engine arrives): keep the
  // reader at the bottom if that is where they were.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && follows() && el.scrollHeight - el.scrollTop - el.clientHeight > 1)
      el.scrollTop = el.scrollHeight;
  });
  // New rows while at the bottom: follow them on the next frames (once they are measured). A row that grows (a
  // streaming answer) is followed by the virtualizer as it measures (anchorTo 'end') and by the effect above.
  useEffect(() => {
    if (!atBottom.current || follow.current !== null) return;
    follow.current = requestAnimationFrame(() => {
      follow.current = null;
      scrollToBottom(2);
    });
  }, [groups.length, scrollToBottom]);
  useEffect(
    () => () => {
      if (follow.current !== null) cancelAnimationFrame(follow.current);
    },
    [],
  );

  // A message asked for (once it is among the rows): centre it and highlight it for a moment.
  const showFocus = useEffectEvent(() => {
    atBottom.current = false;
    setShowJump(true);
    virtualizer.scrollToIndex(focusIndex, { align: 'center' });
    setFlashId(focusGroupId);
  });
  useLayoutEffect(() => {
    if (!focusGroupId) return;
    showFocus();
    const timer = setTimeout(() => setFlashId(null), FOCUS_HIGHLIGHT_MS);
    return () => clearTimeout(timer);
  }, [focusMessageId, focusGroupId]);

  // Translated once per language, not on each of the frames a streaming answer renders.
  const listLabel = useMemo(() => t('render.messages'), [t]);
  const items = virtualizer.getVirtualItems();
  // The rows in view (the others are overscan: their markdown waits until the browser is idle).
  const inView = virtualizer.range;
  return (
    <div className="cc-list-wrap">
      <div
        ref={scrollRef}
        className={`cc-list-scroll${codeWrap ? ' cc-code-wrap' : ''}`}
        onScroll={handleScroll}
        onWheel={handleWheel}
        onKeyDown={handleKeyDown}
        onTouchStart={handleTouchStart}
        onTouchMove={handleTouchMove}
        data-testid="message-list"
        role="log"
        aria-live="off"
        tabIndex={0}
        aria-label={listLabel}
      >
        <div className="cc-list-inner" ref={virtualizer.containerRef}>
          {items.map((item) => {
            const group = groups[item.index];
            if (!group) return null;
            return (
              <div
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className={`cc-list-item${flashId === group.id ? ' cc-list-item-focus' : ''}`}
                data-focused={flashId === group.id || undefined}
              >
                <DeferMarkdownContext.Provider
                  value={!!inView && (item.index < inView.startIndex || item.index > inView.endIndex)}
                >
                  <MessageRow
                    group={group}
                    model={model}
                    userMarkdown={userMarkdown}
                    live={group.id === liveGroupId}
                  />
                </DeferMarkdownContext.Provider>
              </div>
            );
          })}
        </div>
        {footer}
        <div className="cc-list-spacer" />
      </div>
      {showJump && (
        <Tooltip label={t('render.jumpToLatest')}>
          <ActionIcon
            className="cc-jump hide-in-print"
            radius="xl"
            size="lg"
            variant="filled"
            onClick={() => {
              atBottom.current = true;
              readerScrollsUp.current = false;
              setShowJump(false);
              scrollToBottom(3);
            }}
            aria-label={t('render.jumpToLatest')}
          >
            <ArrowDownIcon />
          </ActionIcon>
        </Tooltip>
      )}
    </div>
  );
}

/** Every row, not virtualised: the print / PDF view. */
export function PrintableMessages({
  groups,
  model,
  userMarkdown,
}: Pick<MessageListProps, 'groups' | 'model' | 'userMarkdown'>) {
  return (
    <div className="cc-print-list">
      {groups.map((group) => (
        <MessageRow key={group.id} group={group} model={model} userMarkdown={userMarkdown} />
      ))}
    </div>
  );
}
