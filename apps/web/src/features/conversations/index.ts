export { ConversationList } from './components/conversation-list';
export { HistoryViewer } from './components/history-viewer';
export { useConversationHistory } from './api/get-conversation';
export { useConversations } from './api/get-conversations';
