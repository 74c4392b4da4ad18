export { SharedConversationView } from './components/shared-conversation-view';
