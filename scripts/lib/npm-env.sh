# Sourced by the project's scripts. `npm run` exports the whole npm configuration (the project's .npmrc
# included, e.g. ignore-scripts=true) as npm_config_* variables to what it runs; the private n8n and test
# installs must not inherit it. Only what reaches the registry is kept (registry, proxy, CA, cache).
while IFS= read -r __v; do
  case "$(printf '%s' "$__v" | tr '[:upper:]' '[:lower:]')" in
    npm_config_registry|npm_config_*:registry|npm_config_cache|npm_config_cafile|npm_config_ca|npm_config_proxy|npm_config_https_proxy|npm_config_noproxy|npm_config_no_proxy|npm_config_strict_ssl|npm_config_fetch_*|npm_config_maxsockets|npm_config_userconfig|npm_config_globalconfig) ;;
    *) unset "$__v" ;;
  esac
done < <(compgen -e | grep -i '^npm_config_' || true)
unset __v
