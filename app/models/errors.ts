// The refusal every model throws: defined in app/utils/errors.ts (utils throw it too and must not
// import models), re-exported here for the models and routes that import it from this path.
export { DomainError, isDomainError } from "~/utils/errors";
