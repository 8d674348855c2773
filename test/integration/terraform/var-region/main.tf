# A workspace whose provider region comes only from a var file (prod.tfvars), and which needs a
# secret variable that the scanner gets from sensitiveVars. Without the var file there is no region:
# the scan must fail on that, never look in another region and report everything deleted.
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

variable "region" {
  type = string
}

# Deliberately not `sensitive = true` and not named like a secret: driftwatch must hide it anyway.
variable "upstream_header" {
  type = string
}

provider "aws" {
  region = var.region
}

resource "aws_ssm_parameter" "endpoint" {
  name  = "/var-region/endpoint"
  type  = "String"
  value = "https://upstream.example.com"
  tags = {
    Header = var.upstream_header
  }
}
