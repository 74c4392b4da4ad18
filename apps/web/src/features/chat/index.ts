export { ChatPanel } from './components/chat-panel';
export type { ChatTarget } from './components/chat-panel';
export { openNewConversationModal } from './components/new-conversation-modal';
export { StatusCard } from './components/status-card';
