import '../../styles/mantine-all.css';
import { useParams } from 'react-router';
import { HistoryViewer } from '../../features/conversations';

export function HistoryRoute() {
  const { conversationId = '' } = useParams();
  return <HistoryViewer key={conversationId} conversationId={conversationId} />;
}
