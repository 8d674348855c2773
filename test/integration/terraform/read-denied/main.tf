# One bucket behind a provider S3 endpoint the test chooses (an API that answers 403, or moto), and
# two resources that make no API call, so that one deletion stays below the deletion guard's ratio.
# The states are written by the test, not applied: refresh-only plans read only these ids.
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

variable "s3_endpoint" {
  type    = string
  default = null
}

provider "aws" {
  region                      = "eu-west-1"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  endpoints {
    s3 = var.s3_endpoint
  }
}

resource "aws_s3_bucket" "data" {
  bucket = "read-denied-data"
}

resource "terraform_data" "pad" {
  count = 2
}
