export { ChatPanel } from './components/chat-panel';
export type { ChatTarget } from './components/chat-panel';
export { openNewConversationModal } from './open-new-conversation';
export { StatusCard } from './components/status-card';
