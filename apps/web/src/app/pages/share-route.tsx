import '../../styles/mantine-all.css';
import { useParams } from 'react-router';
import { SharedConversationView } from '../../features/share';

export function ShareRoute() {
  const { token = '' } = useParams();
  return <SharedConversationView key={token} token={token} />;
}
