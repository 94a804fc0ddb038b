import { startBackground } from '../src/background';

export default defineBackground(() => {
  startBackground();
});
