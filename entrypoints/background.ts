export default defineBackground(() => {
  // Wiring lands with the enforcement runtime (src/background).
});
