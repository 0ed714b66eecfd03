// The view's stylesheets travel with it (the Requests view's shared pieces, then its own).
import '../requests/requests.css';
import './work.css';

export { WorkView } from './work-view';
