// The view's stylesheet travels with it; the component itself lives in requests-view.tsx
// (which tests import without a bundler).
import './requests.css';

export { RequestsView } from './requests-view';
