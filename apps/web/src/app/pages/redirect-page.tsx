import { Navigate, useLocation, useParams } from 'react-router';
import { isSafeRedirect, paths } from '../../config/paths';

/** /redirect/{path}: replaces itself with /{path}, keeping the query (a same-origin path only). */
export function RedirectPage() {
  const params = useParams();
  const { search } = useLocation();
  const target = `/${params['*'] ?? ''}${search}`;
  return <Navigate to={isSafeRedirect(target) ? target : paths.home} replace />;
}
