import { createBridge } from './bridge';
import { rememberedProfile } from './store/profiles-slice';
import { preloadView } from './views/view-loaders';

// main.tsx imports this module first, so it runs before react-dom and the views are
// evaluated: the socket opens (and the host starts pushing the first answers), and the
// view the address names starts loading, while the rest of the first script starts.
export const bridgeStarted = createBridge(rememberedProfile);
if (!(bridgeStarted instanceof Promise)) bridgeStarted.connect();
preloadView(window.location.hash);
