# Workspace for test/integration/hostile-plan.test.ts: Terraform 1.11 features that put secrets in
# unusual places of a plan — write-only arguments fed by an ephemeral variable, a sensitive value as an
# instance key of a resource and of a module (through nonsensitive()), a failing check block whose
# message shows a secret, a sensitive output.
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

provider "aws" {
  region = "eu-west-1"
}

variable "tenant_token" {
  type      = string
  sensitive = true
}

variable "eph_password" {
  type      = string
  ephemeral = true
}

resource "aws_secretsmanager_secret" "wo" {
  name = "hostile-wo"
}

resource "aws_secretsmanager_secret_version" "wo" {
  secret_id                = aws_secretsmanager_secret.wo.id
  secret_string_wo         = var.eph_password
  secret_string_wo_version = 1
}

resource "aws_ssm_parameter" "wo" {
  name             = "/hostile/wo"
  type             = "SecureString"
  value_wo         = var.eph_password
  value_wo_version = 1
}

resource "aws_ssm_parameter" "per_tenant" {
  for_each = toset([nonsensitive(var.tenant_token), "public"])
  name     = "/hostile/tenant/${md5(each.key)}"
  type     = "String"
  value    = "v1"
  tags     = { Tenant = "yes" }
}

module "tenant" {
  source   = "./modules/tenant"
  for_each = toset([nonsensitive(var.tenant_token)])
  name     = md5("module-${each.key}")
}

# A secret Terraform masks only where it comes from (the secret version, the data source reading
# it), copied into a plain tag with nonsensitive(). Its value is not a sensitive variable.
variable "seed_value" {
  type = string
}

resource "aws_secretsmanager_secret" "copied" {
  name = "hostile-copied"
}

resource "aws_secretsmanager_secret_version" "copied" {
  secret_id     = aws_secretsmanager_secret.copied.id
  secret_string = var.seed_value
}

data "aws_secretsmanager_secret_version" "copied" {
  secret_id = aws_secretsmanager_secret_version.copied.secret_id
}

resource "aws_ssm_parameter" "tagged" {
  name  = "/hostile/tagged"
  type  = "String"
  value = "plain"
  tags = {
    FromData = nonsensitive(data.aws_secretsmanager_secret_version.copied.secret_string)
    Team     = "a"
  }
}

check "token_length" {
  assert {
    condition     = length(var.tenant_token) < 3
    error_message = "token too long: ${nonsensitive(var.tenant_token)}"
  }
}

output "token" {
  value     = var.tenant_token
  sensitive = true
}
