// A module resolve hook for replay.mjs --modules=DIR (registered with node:module's
// register()): the driver's own imports of packages resolve from DIR/node_modules, so one
// replay.mjs drives the release installed there (releases/0.0.57, or a scratch install of
// another published release). Everything those packages import resolves from where they
// are, as usual.
let driverUrl;
let packagesUrl;

export async function initialize({ driver, packages }) {
  driverUrl = driver;
  packagesUrl = packages;
}

const isBare = (specifier) =>
  !specifier.startsWith(".") && !specifier.startsWith("/") && !/^[a-z][a-z0-9+.-]*:/i.test(specifier);

export async function resolve(specifier, context, nextResolve) {
  if (context.parentURL === driverUrl && isBare(specifier)) {
    return nextResolve(specifier, { ...context, parentURL: packagesUrl });
  }
  return nextResolve(specifier, context);
}
