-- A database for pbem on a club's PostgreSQL (run as a superuser).
CREATE ROLE pbem LOGIN PASSWORD 'change-me';
CREATE DATABASE pbem OWNER pbem;
-- pbem creates its tables itself on first start. The password goes into /etc/pbem/secrets.env
-- (PBEM_DB_PASSWORD, named by database.password_env), never into pbem.toml: docs/deploy.md.
