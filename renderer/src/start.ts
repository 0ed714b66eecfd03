import { createBridge } from './bridge';
import { rememberedProfile } from './store/profiles-slice';
import { preloadView } from './views/view-loaders';

// As the page starts, before its first render: the socket opens (and the host starts
// pushing the first answers), and the view the address names starts loading.
export const bridgeStarted = createBridge(rememberedProfile);
if (!(bridgeStarted instanceof Promise)) bridgeStarted.connect();
export const viewLoaded = preloadView(window.location.hash);
